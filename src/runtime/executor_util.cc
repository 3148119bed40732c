// One wording for every executor's checks, so a user sees the same message whichever executor
// the model was compiled for.
#include "executor_util.h"

#include <cstdio>

#include "kiln/support/error.h"

namespace kiln::runtime {

Json tensorInfo(const std::string& name, const Shape& shape, DataType dtype) {
  Json dims = Json::Array{};
  for (int64_t d : shape) dims.push(Json(d));
  Json info;
  info["name"] = name;
  info["shape"] = std::move(dims);
  info["dtype"] = dtype.str();
  return info;
}

size_t inputPosition(const char* function, const Value& which, const std::string& model,
                     size_t count, const std::function<int64_t(const std::string&)>& indexOf,
                     const std::function<std::string()>& names) {
  if (which.isString()) {
    int64_t i = indexOf(which.asString());
    if (i < 0) {
      throw Error(strCat(function, ": model '", model, "' has no input named '", which.asString(),
                         "' (its inputs are: ", names(), ")"));
    }
    return static_cast<size_t>(i);
  }
  if (!which.isInt()) {
    throw Error(strCat(function, ": expected an input name or index, got a ", which.typeName()));
  }
  int64_t i = which.asInt();
  if (i < 0 || static_cast<size_t>(i) >= count) {
    throw Error(strCat(function, ": input index ", i, " is out of range; model '", model, "' has ",
                       count, " inputs"));
  }
  return static_cast<size_t>(i);
}

size_t outputPosition(const char* function, const Value& which, const std::string& model,
                      size_t count) {
  int64_t i = which.asInt();
  if (i < 0 || static_cast<size_t>(i) >= count) {
    throw Error(strCat(function, ": output index ", i, " is out of range; model '", model, "' has ",
                       count, " outputs"));
  }
  return static_cast<size_t>(i);
}

void checkBindable(const char* function, const std::string& name, const Shape& shape,
                   DataType dtype, const NDArray& buffer, bool written) {
  if (!buffer.defined()) throw Error(strCat(function, "('", name, "'): got a null array"));
  if (buffer.shape() != shape || buffer.dtype() != dtype) {
    throw Error(strCat(function, "('", name, "'): expected ", describe(shape, dtype), ", got ",
                       describe(buffer.shape(), buffer.dtype())));
  }
  if (buffer.device().type != kDLCPU) {
    throw Error(strCat(function, "('", name, "'): expected a cpu array, got one on ",
                       buffer.device().str()));
  }
  auto address = reinterpret_cast<uintptr_t>(buffer.data());
  if (address % kKernelAlignment != 0) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "%#llx", static_cast<unsigned long long>(address));
    throw Error(strCat(function, "('", name, "'): the array's data at address ", hex, " is not ",
                       kKernelAlignment,
                       "-byte aligned, which the kernels assume; allocate it with NDArray::empty "
                       "(or aligned_alloc), or use the copying ",
                       written ? "get_output" : "set_input"));
  }
  if (written && buffer.readOnly()) {
    throw Error(strCat(function, "('", name, "'): the array is read-only; outputs are written"));
  }
}

}  // namespace kiln::runtime
