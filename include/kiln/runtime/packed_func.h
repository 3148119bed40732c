// Type-erased values and packed functions: the one calling convention of modules, executors, RPC.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "kiln/runtime/ndarray.h"
#include "kiln/runtime/value_kind.h"
#include "kiln/support/json.h"

namespace kiln::runtime {

class Module;
class PackedFunc;

// Raw bytes (parameter blobs), kept distinct from text.
struct Bytes {
  std::string data;
};

// One argument or return value of a packed function.
class Value {
 public:
  Value() = default;  // none
  Value(std::nullptr_t) {}
  Value(bool v) : v_(v) {}
  Value(int v) : v_(static_cast<int64_t>(v)) {}
  Value(int64_t v) : v_(v) {}
  Value(uint64_t v) : v_(static_cast<int64_t>(v)) {}
  Value(double v) : v_(v) {}
  Value(const char* v) : v_(std::string(v)) {}
  Value(std::string v) : v_(std::move(v)) {}
  Value(Bytes v) : v_(std::move(v)) {}
  Value(NDArray v) : v_(std::move(v)) {}
  // A sequence, or an optional sequence that holds one (an optional holding none is none).
  Value(TensorList v) : v_(std::move(v)) {}
  Value(Device v) : v_(v) {}
  Value(DataType v) : v_(v) {}
  Value(Json v) : v_(std::move(v)) {}
  Value(Module v);
  Value(PackedFunc v);

  bool isNone() const { return v_.index() == 0; }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isString() const { return std::holds_alternative<std::string>(v_); }
  bool isNDArray() const { return std::holds_alternative<NDArray>(v_); }
  bool isTensorList() const { return std::holds_alternative<TensorList>(v_); }

  // Typed accessors throw kiln::Error: "expected an NDArray, got a string".
  bool asBool() const;
  int64_t asInt() const;
  double asDouble() const;
  const std::string& asString() const;
  const Bytes& asBytes() const;
  const NDArray& asNDArray() const;
  const TensorList& asTensorList() const;
  Device asDevice() const;
  DataType asDataType() const;
  const Json& asJson() const;
  Module asModule() const;
  PackedFunc asFunc() const;
  const char* typeName() const;
  // Its KilnTypeCode (kiln/runtime/c_api.h): the stable number the C ABI and RPC use.
  int32_t typeCode() const;

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string, Bytes, NDArray, Device, DataType,
               Json, std::shared_ptr<Module>, std::shared_ptr<PackedFunc>, TensorList>
      v_;
};

using Args = std::vector<Value>;

// A sequence's or optional's value as packed functions pass it (KIND: its ValueKind): none for an
// optional that holds nothing, the NDArray an optional tensor holds, else the TensorList; and the
// list a Value of any of those forms stands for. Neither copies tensors.
Value listToValue(TensorList list, ValueKind kind);
TensorList valueToList(const Value& value);

// A function taking and returning Values. An empty PackedFunc means "no such function".
class PackedFunc {
 public:
  using Body = std::function<Value(const Args&)>;
  PackedFunc() = default;
  explicit PackedFunc(Body body) : body_(std::move(body)) {}

  explicit operator bool() const { return static_cast<bool>(body_); }
  Value callPacked(const Args& args) const;
  template <typename... Ts>
  Value operator()(Ts&&... args) const {
    return callPacked(Args{Value(std::forward<Ts>(args))...});
  }

 private:
  Body body_;
};

// Checks the argument count of a packed call; throws kiln::Error naming the function.
void checkArgCount(const char* function, const Args& args, size_t expected);

}  // namespace kiln::runtime
