// Value accessors and packed calls: every type mismatch becomes an "expected X, got Y" error.
#include "kiln/runtime/packed_func.h"

#include "kiln/runtime/c_api.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"

namespace kiln::runtime {

namespace {

// Each alternative's name with its article, in the variant's order.
constexpr const char* kArticleNames[] = {
    "none",     "a bool",       "an int",      "a float",    "a string",
    "bytes",    "an NDArray",   "a Device",    "a DataType", "a Json value",
    "a Module", "a PackedFunc", "a TensorList"};
constexpr const char* kTypeNames[] = {"none",   "bool",       "int",       "float",    "string",
                                      "bytes",  "NDArray",    "Device",    "DataType", "Json",
                                      "Module", "PackedFunc", "TensorList"};

// Each alternative's KilnTypeCode, in the variant's order.
constexpr int32_t kTypeCodes[] = {
    kKilnNone,   kKilnBool,     kKilnInt,  kKilnFloat,  kKilnString,   kKilnBytes,     kKilnTensor,
    kKilnDevice, kKilnDataType, kKilnJson, kKilnModule, kKilnFunction, kKilnTensorList};

}  // namespace

int32_t Value::typeCode() const { return kTypeCodes[v_.index()]; }

Value::Value(Module v) : v_(std::make_shared<Module>(std::move(v))) {}
Value::Value(PackedFunc v) : v_(std::make_shared<PackedFunc>(std::move(v))) {}

const char* Value::typeName() const { return kTypeNames[v_.index()]; }

#define KILN_VALUE_EXPECT(cond, what)                                            \
  if (!(cond)) {                                                                 \
    throw Error(strCat("expected ", what, ", got ", kArticleNames[v_.index()])); \
  }

bool Value::asBool() const {
  if (isInt()) return std::get<int64_t>(v_) != 0;
  KILN_VALUE_EXPECT(std::holds_alternative<bool>(v_), "a bool");
  return std::get<bool>(v_);
}

int64_t Value::asInt() const {
  KILN_VALUE_EXPECT(isInt(), "an int");
  return std::get<int64_t>(v_);
}

double Value::asDouble() const {
  if (isInt()) return static_cast<double>(std::get<int64_t>(v_));
  KILN_VALUE_EXPECT(std::holds_alternative<double>(v_), "a float");
  return std::get<double>(v_);
}

const std::string& Value::asString() const {
  KILN_VALUE_EXPECT(isString(), "a string");
  return std::get<std::string>(v_);
}

const Bytes& Value::asBytes() const {
  KILN_VALUE_EXPECT(std::holds_alternative<Bytes>(v_), "bytes");
  return std::get<Bytes>(v_);
}

const NDArray& Value::asNDArray() const {
  KILN_VALUE_EXPECT(isNDArray(), "an NDArray");
  return std::get<NDArray>(v_);
}

Value listToValue(TensorList list, ValueKind kind) {
  if (list.none) return Value();
  if (kind == ValueKind::kOptionalTensor) return Value(list.items.at(0));
  return Value(std::move(list));
}

TensorList valueToList(const Value& value) {
  if (value.isNone()) return TensorList::noValue();
  if (value.isNDArray()) return TensorList{{value.asNDArray()}, false};
  return value.asTensorList();
}

const TensorList& Value::asTensorList() const {
  KILN_VALUE_EXPECT(isTensorList(), "a TensorList");
  return std::get<TensorList>(v_);
}

Device Value::asDevice() const {
  KILN_VALUE_EXPECT(std::holds_alternative<Device>(v_), "a Device");
  return std::get<Device>(v_);
}

DataType Value::asDataType() const {
  if (isString()) return DataType::parse(std::get<std::string>(v_));
  KILN_VALUE_EXPECT(std::holds_alternative<DataType>(v_), "a DataType");
  return std::get<DataType>(v_);
}

const Json& Value::asJson() const {
  KILN_VALUE_EXPECT(std::holds_alternative<Json>(v_), "a Json value");
  return std::get<Json>(v_);
}

Module Value::asModule() const {
  KILN_VALUE_EXPECT(std::holds_alternative<std::shared_ptr<Module>>(v_), "a Module");
  return *std::get<std::shared_ptr<Module>>(v_);
}

PackedFunc Value::asFunc() const {
  KILN_VALUE_EXPECT(std::holds_alternative<std::shared_ptr<PackedFunc>>(v_), "a PackedFunc");
  return *std::get<std::shared_ptr<PackedFunc>>(v_);
}

#undef KILN_VALUE_EXPECT

Value PackedFunc::callPacked(const Args& args) const {
  if (!body_) throw Error("called an empty PackedFunc (the function does not exist)");
  return body_(args);
}

void checkArgCount(const char* function, const Args& args, size_t expected) {
  if (args.size() != expected) {
    throw Error(strCat(function, ": expected ", expected, " argument", expected == 1 ? "" : "s",
                       ", got ", args.size()));
  }
}

}  // namespace kiln::runtime
