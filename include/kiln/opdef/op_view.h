// What an op's rules see of one node, at compile time (a graph node, whose constant inputs have
// known values) and at run time (a runtime op's call, whose inputs all do): one interface, so each
// rule is written once and both sides compute the same shapes and values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/opdef/dim.h"
#include "kiln/support/error.h"

namespace kiln::opdef {

// A dim whose size is known only at run time (the runtime's kDynamicDim has the same value).
inline constexpr int64_t kUnknownDim = -1;
using Dims = std::vector<int64_t>;

class OpView {
 public:
  virtual ~OpView() = default;
  virtual const std::string& op() const = 0;  // the ONNX op type
  virtual std::string label() const = 0;      // "Slice 's1'": how errors name the node

  virtual bool hasAttr(const std::string& name) const = 0;
  // Typed attribute reads; a value of another kind is an error naming the attribute. Floats
  // accept integral values written as ints.
  virtual int64_t attrInt(const std::string& name, int64_t dflt) const = 0;
  virtual double attrFloat(const std::string& name, double dflt) const = 0;
  virtual std::string attrString(const std::string& name, const std::string& dflt) const = 0;
  virtual std::vector<int64_t> attrInts(const std::string& name) const = 0;   // empty if absent
  virtual std::vector<double> attrFloats(const std::string& name) const = 0;  // empty if absent

  virtual size_t numInputs() const = 0;
  virtual size_t numOutputs() const = 0;
  virtual bool hasInput(size_t i) const = 0;  // false for an omitted optional input
  // Input I's dims, kUnknownDim where a size is known only at run time.
  virtual Dims inputShape(size_t i) const = 0;
  // Input I's type as messages write it: "float32[2,?]".
  virtual std::string inputTypeStr(size_t i) const = 0;
  // Whether input I is given and holds integers or bools (the values inputSizes reads; bools as
  // 0 and 1).
  virtual bool inputIsInteger(size_t i) const = 0;
  // Input I's elements when they are known now (always at run time; for constants at compile
  // time); nullopt otherwise. inputInts accepts integer dtypes only (WHAT names the input in the
  // error), inputDoubles any numeric dtype.
  virtual std::optional<std::vector<int64_t>> inputInts(size_t i, const char* what) const = 0;
  virtual std::optional<std::vector<double>> inputDoubles(size_t i, const char* what) const = 0;

  // Input I's dims as sizes: constants, sizes in the graph's symbols, or unknown. (By default
  // inputShape's, with kUnknownDim unknown.)
  virtual DimList inputDims(size_t i) const;
  // The elements of integer (or bool: 0 and 1) input I as sizes when they are known now: a
  // constant's, or at compile time a shape computation's, written in the graph's symbols; nullopt
  // otherwise. (By default inputInts'.)
  virtual std::optional<DimList> inputSizes(size_t i, const char* what) const;
  // The bounds of the symbols sizes are written in (none by default, and at run time).
  virtual const DimBounds& dimBounds() const;
};

template <typename... Args>
[[noreturn]] void fail(const OpView& op, Args&&... args) {
  throw Error(strCat(op.label(), ": ", std::forward<Args>(args)...));
}

std::string listStr(const std::vector<int64_t>& v);  // "[1,2,3]"
std::string dimListStr(const DimList& dims);         // "[1,seq,?]"
std::string dimsStr(const Dims& dims);               // "[1,?,3]"
bool allKnown(const Dims& dims);                     // no kUnknownDim
// Each constant's value, kUnknownDim for the other sizes (at run time every size is a constant).
Dims knownDims(const DimList& dims);
int64_t product(const Dims& dims);  // of known dims
// Whether two dims that should be equal are both known and differ (unknown ones are checked when
// their sizes are known).
inline bool knownAndDiffer(int64_t a, int64_t b) {
  return a != b && a != kUnknownDim && b != kUnknownDim;
}

// The length of 1-D input I (a list of dims or axes, WHAT in errors), which must be known now:
// a rule's output rank often depends on it.
int64_t listLength(const OpView& op, size_t i, const char* what);
// The dims given as 1-D input I (Expand's and ConstantOfShape's shape): its values when known
// now (sizes in the graph's symbols at compile time), each checked to be >= 0; else as many
// unknown dims as it has elements.
DimList dimsFromInput(const OpView& op, size_t i, const char* what);

// The ints given as attribute ATTR (older opsets) or as input INPUT (newer ones): not present
// when neither is given, present without values when the input's value is not known now; both
// given is an error.
struct IntList {
  bool present = false;
  std::optional<std::vector<int64_t>> values;  // when present and known
};
IntList intsFromAttrOrInput(const OpView& op, const char* attr, size_t input);

// A size computed in floating point (floor(dim * scale)) as an int64; fails naming WHAT and the
// value when it is negative, NaN or too large to address.
int64_t sizeFromDouble(const OpView& op, double v, const char* what);

}  // namespace kiln::opdef
