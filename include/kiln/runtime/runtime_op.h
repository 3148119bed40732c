// Operators the runtime itself executes: nodes whose output shapes are known only at run time
// (they depend on input values, or on tensors that do), and ops whose output size depends on the
// data (NonZero, TopK, NonMaxSuppression). Each implementation computes its output shapes from its
// inputs, asks its context for the outputs and fills them.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "kiln/runtime/ndarray.h"
#include "kiln/runtime/value_kind.h"
#include "kiln/support/json.h"

namespace kiln::runtime {

// A compiled body of a control-flow op (If's branches, Loop's and Scan's body), ready to run: an
// executor of its own, created on the op's first call and kept across runs. The values of
// enclosing graphs the body reads and its weights are bound already; the op sets the formal
// inputs.
class Subgraph {
 public:
  virtual ~Subgraph() = default;
  virtual size_t numInputs() const = 0;  // the formal inputs
  virtual size_t numOutputs() const = 0;
  // Copies VALUE into formal input I; an error names the body, the input and both types when
  // VALUE's dtype or shape is not what the body was compiled for.
  virtual void setInput(size_t i, const NDArray& value) = 0;
  virtual void run() = 0;
  // Output I of the last run, valid until the next run.
  virtual const NDArray& output(size_t i) const = 0;
  // The shape the body was compiled for output I: -1 where a dim is known only at run time.
  virtual const Shape& outputShape(size_t i) const = 0;
  // Formal inputs and outputs that are sequences or optionals (ValueKind): their kinds, a list
  // to give input I (checked like setInput), and output I's list after a run.
  virtual ValueKind inputKind(size_t i) const = 0;
  virtual ValueKind outputKind(size_t i) const = 0;
  virtual void setListInput(size_t i, const TensorList& value) = 0;
  virtual const TensorList& listOutput(size_t i) const = 0;
};

// What an op implementation sees of one call: its inputs, attributes, and output allocation.
class RuntimeOpContext {
 public:
  virtual ~RuntimeOpContext() = default;
  virtual const std::string& op() const = 0;  // the ONNX op type
  // "Reshape 'r1'": how errors name the node.
  virtual const std::string& label() const = 0;
  // The node's attributes: ints, floats, strings and their lists as JSON values; a tensor as
  // {"dtype": ..., "shape": [...], "data": base64}.
  virtual const Json& attrs() const = 0;
  virtual size_t numInputs() const = 0;
  virtual bool hasInput(size_t i) const = 0;  // false for an omitted optional input
  virtual const NDArray& input(size_t i) const = 0;
  virtual size_t numOutputs() const = 0;
  virtual DataType outputDtype(size_t i) const = 0;
  // False for an output nothing reads (computed into scratch memory, then dropped). Default: true.
  virtual bool hasOutput(size_t i) const;
  // Output I with SHAPE: a statically planned output's array (SHAPE must equal its planned
  // shape; anything else is an error naming both), or a run-time sized output's buffer, reused
  // across runs and grown when SHAPE needs more bytes than it holds.
  virtual NDArray output(size_t i, const Shape& shape) = 0;
  // The compiled body ATTR of a control-flow op; an error for an op without one.
  virtual Subgraph& body(const std::string& attr);
  // Sequences and optionals (ValueKind): the kinds of the node's inputs and outputs (an omitted
  // input is a tensor), what a sequence or optional input holds, and the list an output of such
  // a kind is set to (an output of a dtype other than outputDtype's, a shape other than the
  // declared one, or an optional tensor of more than one tensor is an error naming the node).
  // Defaults: every value is a tensor.
  virtual ValueKind inputKind(size_t i) const;
  virtual ValueKind outputKind(size_t i) const;
  virtual const TensorList& listInput(size_t i) const;
  virtual void setListOutput(size_t i, TensorList value);
};

using RuntimeOpFn = void (*)(RuntimeOpContext& ctx);

using RuntimeOpTable = std::map<std::string, RuntimeOpFn>;

// The ops live in libkiln_runtime_ops, which registers its table as it loads; the core loads it
// from its own folder on first use when the program did not link it.
inline constexpr const char* kRuntimeOpsLibrary = "libkiln_runtime_ops.so";
void registerRuntimeOps(const RuntimeOpTable& ops);  // OPS outlives every caller

// The implementation of op NAME (an ONNX op type), or nullptr (also when the ops library is not
// there: runtimeOpsUnavailable says why).
RuntimeOpFn findRuntimeOp(const std::string& name);
std::vector<std::string> runtimeOpNames();  // sorted; empty without the ops library
// "" when the ops library is registered, else why it could not be loaded.
const std::string& runtimeOpsUnavailable();

}  // namespace kiln::runtime
