// The C ABI over Module, PackedFunc and Value: conversions at the boundary, errors kept per thread.
#include "kiln/runtime/c_api.h"

#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>

#include "kiln/runtime/module.h"
#include "kiln/support/error.h"

struct KilnModuleObject {
  kiln::runtime::Module module;
};
struct KilnFunctionObject {
  kiln::runtime::PackedFunc function;
};

namespace kiln::runtime {
namespace {

thread_local std::string lastError;

// Tensors handed out as results, by the DLTensor the caller holds, until released (counted: a
// list may hand out one tensor twice).
class TensorResults {
 public:
  static void refuseStrings(const NDArray& a) {
    if (a.dtype().isString()) {
      throw Error(strCat("a ", a.dtype().str(), shapeStr(a.shape()),
                         " result cannot cross the C ABI, whose tensors are DLPack's (numbers "
                         "only); read string tensors through the C++ API"));
    }
  }
  DLTensor* hold(NDArray a) {
    refuseStrings(a);
    auto* dl = const_cast<DLTensor*>(a.dl());
    std::lock_guard<std::mutex> lock(mutex_);
    Held& h = held_[dl];
    h.array = std::move(a);
    ++h.count;
    return dl;
  }
  void release(const DLTensor* dl) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = held_.find(dl);
    if (it != held_.end() && --it->second.count == 0) held_.erase(it);
  }
  // The array behind DL, handed over to the caller (one of its holds released).
  NDArray take(const DLTensor* dl) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = held_.find(dl);
    KILN_CHECK(it != held_.end(), "a tensor result that kiln does not hold");
    NDArray a = it->second.array;
    if (--it->second.count == 0) held_.erase(it);
    return a;
  }
  static TensorResults& get() {
    static auto* results = new TensorResults();  // outlives every static destructor
    return *results;
  }

 private:
  struct Held {
    NDArray array;
    int count = 0;
  };
  std::mutex mutex_;
  std::unordered_map<const DLTensor*, Held> held_;
};

// A borrowed DLTensor as an NDArray view of the caller's memory.
NDArray tensorArgument(const DLTensor* t, int32_t index) {
  if (t == nullptr || t->data == nullptr) {
    throw Error(strCat("argument ", index, ": a tensor with no data"));
  }
  if (t->device.device_type != kDLCPU) {
    throw Error(strCat("argument ", index, ": a tensor on device type ", t->device.device_type,
                       "; expected a CPU tensor (kDLCPU = 1)"));
  }
  Shape shape(t->shape, t->shape + t->ndim);
  if (t->strides != nullptr) {
    int64_t expected = 1;
    for (int d = t->ndim - 1; d >= 0; --d) {
      if (shape[static_cast<size_t>(d)] != 1 && t->strides[d] != expected) {
        throw Error(strCat("argument ", index,
                           ": a tensor with strides; expected a compact "
                           "row-major tensor"));
      }
      expected *= shape[static_cast<size_t>(d)];
    }
  }
  DataType dtype = DataType::fromDL(t->dtype);
  size_t size = static_cast<size_t>(shapeNumel(shape)) * dtype.bytes();
  return NDArray::fromExternal(shape, dtype, static_cast<const char*>(t->data) + t->byte_offset,
                               size, nullptr, false);
}

TensorList listArgument(const KilnTensorList& list, int32_t index) {
  if (list.size == -1) return TensorList::noValue();
  if (list.size < 0 || (list.size > 0 && list.items == nullptr)) {
    throw Error(strCat("argument ", index, ": a tensor list of size ", list.size,
                       list.items == nullptr ? " with NULL items" : "",
                       "; expected -1 (none) or a size >= 0 with its tensors"));
  }
  TensorList out;
  for (int64_t k = 0; k < list.size; ++k) {
    out.items.push_back(tensorArgument(list.items[k], index));
  }
  return out;
}

Value toValue(const KilnValue& v, int32_t index) {
  switch (v.type_code) {
    case kKilnNone:
      return Value();
    case kKilnInt:
      return Value(v.v.v_int);
    case kKilnFloat:
      return Value(v.v.v_float);
    case kKilnBool:
      return Value(v.v.v_int != 0);
    case kKilnString:
      return Value(std::string(v.v.v_str.data, v.v.v_str.size));
    case kKilnBytes:
      return Value(Bytes{std::string(v.v.v_str.data, v.v.v_str.size)});
    case kKilnTensor:
      return Value(tensorArgument(v.v.v_tensor, index));
    case kKilnDevice:
      return Value(Device{v.v.v_device.device_type, v.v.v_device.device_id});
    case kKilnDataType:
      return Value(DataType::fromDL(v.v.v_dtype));
    case kKilnJson:
      return Value(Json::parse(std::string(v.v.v_str.data, v.v.v_str.size)));
    case kKilnModule:
      if (v.v.v_module == nullptr) throw Error(strCat("argument ", index, ": a NULL module"));
      return Value(v.v.v_module->module);
    case kKilnFunction:
      if (v.v.v_function == nullptr) throw Error(strCat("argument ", index, ": a NULL function"));
      return Value(v.v.v_function->function);
    case kKilnTensorList:
      return Value(listArgument(v.v.v_list, index));
    default:
      throw Error(strCat("argument ", index, " has type code ", v.type_code,
                         "; expected a KilnTypeCode, 0 to 11 or 13"));
  }
}

KilnString ownedText(const std::string& s) {
  char* data = new char[s.size() + 1];
  std::memcpy(data, s.data(), s.size());
  data[s.size()] = '\0';
  return {data, s.size()};
}

KilnValue fromValue(const Value& value) {
  KilnValue out{};
  out.type_code = value.typeCode();
  switch (out.type_code) {
    case kKilnNone:
      break;
    case kKilnInt:
      out.v.v_int = value.asInt();
      break;
    case kKilnFloat:
      out.v.v_float = value.asDouble();
      break;
    case kKilnBool:
      out.v.v_int = value.asBool() ? 1 : 0;
      break;
    case kKilnString:
      out.v.v_str = ownedText(value.asString());
      break;
    case kKilnBytes:
      out.v.v_str = ownedText(value.asBytes().data);
      break;
    case kKilnTensor:
      out.v.v_tensor = TensorResults::get().hold(value.asNDArray());
      break;
    case kKilnDevice:
      out.v.v_device = value.asDevice().dl();
      break;
    case kKilnDataType:
      out.v.v_dtype = value.asDataType().dl();
      break;
    case kKilnJson:
      out.v.v_str = ownedText(value.asJson().dump());
      break;
    case kKilnModule:
      out.v.v_module = new KilnModuleObject{value.asModule()};
      break;
    case kKilnFunction:
      out.v.v_function = new KilnFunctionObject{value.asFunc()};
      break;
    case kKilnTensorList: {
      const TensorList& list = value.asTensorList();
      for (const NDArray& a : list.items) TensorResults::refuseStrings(a);  // before holding any
      out.v.v_list.size = list.none ? -1 : static_cast<int64_t>(list.items.size());
      out.v.v_list.items = list.items.empty() ? nullptr : new DLTensor*[list.items.size()];
      for (size_t k = 0; k < list.items.size(); ++k) {
        out.v.v_list.items[k] = TensorResults::get().hold(list.items[k]);
      }
      break;
    }
    default:
      KILN_CHECK(false, "a value of unknown type code ", out.type_code);
  }
  return out;
}

// Runs BODY, turning any exception into KILN_STATUS_ERROR and the thread's last error.
template <typename F>
KilnStatus guarded(F&& body) {
  try {
    body();
    return KILN_STATUS_OK;
  } catch (const std::bad_alloc&) {
    lastError = "out of memory";
  } catch (const std::exception& e) {
    lastError = e.what();
  } catch (...) {
    lastError = "unknown exception";
  }
  return KILN_STATUS_ERROR;
}

void requireOut(const void* out, const char* what) {
  if (out == nullptr) throw Error(strCat(what, ": the output pointer is NULL"));
}

}  // namespace
}  // namespace kiln::runtime

using kiln::Error;
using kiln::strCat;
namespace rt = kiln::runtime;

extern "C" {

int kiln_api_version(void) { return KILN_ABI_VERSION; }

const char* kiln_get_last_error(void) { return rt::lastError.c_str(); }

KilnStatus kiln_module_load(const char* path, KilnModuleHandle* out) {
  return rt::guarded([&] {
    rt::requireOut(out, "kiln_module_load");
    *out = nullptr;
    if (path == nullptr) throw Error("kiln_module_load: the path is NULL");
    *out = new KilnModuleObject{rt::loadModule(path)};
  });
}

KilnStatus kiln_module_get_function(KilnModuleHandle mod, const char* name,
                                    KilnFunctionHandle* out) {
  return rt::guarded([&] {
    rt::requireOut(out, "kiln_module_get_function");
    *out = nullptr;
    if (mod == nullptr || name == nullptr) {
      throw Error("kiln_module_get_function: the module or the name is NULL");
    }
    *out = new KilnFunctionObject{mod->module[name]};
  });
}

KilnStatus kiln_function_call(KilnFunctionHandle f, const KilnValue* args, int32_t num_args,
                              KilnValue* result) {
  return rt::guarded([&] {
    rt::requireOut(result, "kiln_function_call");
    *result = KilnValue{};
    if (f == nullptr) throw Error("kiln_function_call: the function is NULL");
    if (num_args < 0 || (num_args > 0 && args == nullptr)) {
      throw Error(strCat("kiln_function_call: ", num_args, " arguments at ",
                         args == nullptr ? "NULL" : "an address",
                         "; expected a count >= 0 and "
                         "an array of that many values"));
    }
    rt::Args converted;
    for (int32_t i = 0; i < num_args; ++i) converted.push_back(rt::toValue(args[i], i));
    *result = rt::fromValue(f->function.callPacked(converted));
  });
}

void kiln_value_release(KilnValue* value) {
  if (value == nullptr) return;
  switch (value->type_code) {
    case kKilnString:
    case kKilnBytes:
    case kKilnJson:
      delete[] value->v.v_str.data;
      break;
    case kKilnTensor:
      rt::TensorResults::get().release(value->v.v_tensor);
      break;
    case kKilnModule:
      delete value->v.v_module;
      break;
    case kKilnFunction:
      delete value->v.v_function;
      break;
    case kKilnTensorList:
      for (int64_t k = 0; k < value->v.v_list.size; ++k) {
        rt::TensorResults::get().release(value->v.v_list.items[k]);
      }
      delete[] value->v.v_list.items;
      break;
    default:
      break;
  }
  *value = KilnValue{};
}

KilnStatus kiln_value_take_tensor(KilnValue* value, DLManagedTensor** out) {
  return rt::guarded([&] {
    rt::requireOut(out, "kiln_value_take_tensor");
    *out = nullptr;
    if (value == nullptr || value->type_code != kKilnTensor) {
      throw Error(strCat("kiln_value_take_tensor: a value of type code ",
                         value == nullptr ? -1 : value->type_code, "; expected a tensor (",
                         static_cast<int>(kKilnTensor), ")"));
    }
    auto* owner = new rt::NDArray(rt::TensorResults::get().take(value->v.v_tensor));
    auto* managed = new DLManagedTensor{*owner->dl(), owner, [](DLManagedTensor* self) {
                                          delete static_cast<rt::NDArray*>(self->manager_ctx);
                                          delete self;
                                        }};
    *out = managed;
    *value = KilnValue{};
  });
}

void kiln_module_free(KilnModuleHandle mod) { delete mod; }

void kiln_function_free(KilnFunctionHandle f) { delete f; }

}  // extern "C"
