// Python <-> kiln values. NumPy arrays cross without a copy where their layout allows it; the views
// made for that hold a reference to the array, dropped under the GIL whichever thread lets go.
#include "convert.h"

#include <cmath>
#include <cstring>
#include <memory>

#include "kiln/runtime/c_api.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "ndarray_binding.h"

namespace kiln::python {

using namespace pybind11::literals;
using runtime::DataType;
using runtime::NDArray;

namespace {

// NumPy, imported once and kept for the life of the process (never released, so nothing touches
// it after the interpreter has gone): every argument conversion asks for it.
const py::module_& numpy() {
  static const auto* module = new py::module_(py::module_::import("numpy"));
  return *module;
}

py::str utf8(const std::string& s) {  // invalid sequences become U+FFFD rather than an error
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(s.data(), static_cast<py::ssize_t>(s.size()), "replace"));
}

// None, bool, int, float and str as T (a packed Value or Json); nothing for any other object.
template <typename T>
std::optional<T> scalarOf(py::handle obj) {
  if (obj.is_none()) return T();
  if (PyBool_Check(obj.ptr())) return T(obj.cast<bool>());
  if (PyLong_Check(obj.ptr())) return T(obj.cast<int64_t>());
  if (PyFloat_Check(obj.ptr())) return T(obj.cast<double>());
  if (py::isinstance<py::str>(obj)) return T(obj.cast<std::string>());
  return std::nullopt;
}

std::string text(py::handle obj) { return py::str(obj).cast<std::string>(); }
std::string typeName(py::handle obj) { return text(py::type::of(obj).attr("__name__")); }

runtime::Shape shapeOf(const py::array& a) {
  return runtime::Shape(a.shape(), a.shape() + a.ndim());
}

// A reference to OBJ that may be dropped from any thread: it takes the GIL to decrement.
std::shared_ptr<const void> holdObject(py::handle obj) {
  auto* held = new py::object(py::reinterpret_borrow<py::object>(obj));
  return std::shared_ptr<const void>(held, [](const void* p) {
    auto* o = static_cast<const py::object*>(p);
    if (!Py_IsInitialized()) return;  // the interpreter is gone: nothing left to release
    py::gil_scoped_acquire gil;
    delete o;
  });
}

bool isStringKind(char kind) { return kind == 'U' || kind == 'S' || kind == 'O'; }

// Whether kiln can view A in place: C-contiguous numbers of native byte order.
bool viewable(const py::array& a) {
  return (a.flags() & py::array::c_style) != 0 && a.dtype().byteorder() != '>' &&
         !isStringKind(a.dtype().kind());
}

// A view of A's memory (keeping A alive), without a copy; A must be viewable.
NDArray viewOf(const py::array& a) {
  return NDArray::fromExternal(shapeOf(a), dataTypeOf(a.dtype()), a.data(),
                               static_cast<size_t>(a.nbytes()), holdObject(a), !a.writeable());
}

// To bfloat16, rounding to nearest even once: D is first narrowed to float32 rounding to odd,
// which keeps the later rounding exact (float32 holds more than two bits beyond bfloat16's).
uint16_t toBfloat16(double d) {
  auto f = static_cast<float>(d);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if (std::isnan(d)) return static_cast<uint16_t>((bits >> 16) | 0x40);
  if (std::isfinite(f) && static_cast<double>(f) != d) {
    if (std::fabs(static_cast<double>(f)) > std::fabs(d)) {
      f = std::nextafter(f, 0.0F);  // toward zero, then odd
      std::memcpy(&bits, &f, sizeof bits);
    }
    bits |= 1;
  }
  uint32_t rounding = 0x7FFF + ((bits >> 16) & 1);  // to nearest, ties to even
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float fromBfloat16(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

NDArray stringArray(const py::array& source) {
  py::array objects = numpy().attr("asarray")(source, "dtype"_a = "object");
  NDArray out = NDArray::empty(shapeOf(objects), DataType::string());
  py::list flat = objects.attr("reshape")(-1).attr("tolist")();
  auto* items = out.data<std::string>();
  for (size_t i = 0; i < flat.size(); ++i) {
    py::handle item = flat[i];
    if (py::isinstance<py::bytes>(item) || py::isinstance<py::str>(item)) {
      items[i] = item.cast<std::string>();  // str as UTF-8, bytes as they are
    } else {
      throw Error(strCat("a string tensor's elements must be str or bytes; element ", i, " is ",
                         typeName(item)));
    }
  }
  return out;
}

NDArray bfloat16Array(py::handle obj) {
  py::array_t<double, py::array::c_style | py::array::forcecast> f =
      numpy().attr("ascontiguousarray")(obj, "dtype"_a = "float64");
  NDArray out = NDArray::empty(shapeOf(f), DataType{kDLBfloat, 16, 1});
  auto* bits = out.data<uint16_t>();
  for (py::ssize_t i = 0; i < f.size(); ++i) bits[i] = toBfloat16(f.data()[i]);
  return out;
}

// Whether an object array's first element is text (then it is a string tensor).
bool holdsText(const py::array& objects) {
  if (objects.size() == 0) return false;
  py::object first = objects.attr("reshape")(-1)[py::int_(0)];
  return py::isinstance<py::str>(first) || py::isinstance<py::bytes>(first);
}

bool isTensorLike(py::handle obj) {
  return py::isinstance<NDArray>(obj) || py::isinstance<py::array>(obj) ||
         py::hasattr(obj, "__dlpack__");
}

[[noreturn]] void refuseArgument(py::handle obj) {
  throw py::type_error(strCat(
      "a kiln function cannot take a Python ", typeName(obj),
      "; expected None, bool, int, float, str, bytes, a tensor (kiln.NDArray, a NumPy array or "
      "anything with __dlpack__), a list of tensors, a dict, a kiln.Device, a module or a "
      "function"));
}

}  // namespace

DataType dataTypeOf(const py::dtype& dtype) {
  char kind = dtype.kind();
  auto bits = static_cast<uint8_t>(dtype.itemsize() * 8);
  if (kind == 'b') return DataType::boolean();
  if (isStringKind(kind)) return DataType::string();
  if ((kind == 'f' && (bits == 16 || bits == 32 || bits == 64)) ||
      ((kind == 'i' || kind == 'u') && (bits == 8 || bits == 16 || bits == 32 || bits == 64))) {
    return DataType{static_cast<uint8_t>(kind == 'f'   ? kDLFloat
                                         : kind == 'i' ? kDLInt
                                                       : kDLUInt),
                    bits, 1};
  }
  throw Error(strCat("NumPy dtype '", text(dtype),
                     "' has no kiln element type; expected bool, a signed or unsigned integer of "
                     "8 to 64 bits, float16, float32, float64 or a string"));
}

py::dtype numpyDtype(DataType dtype) {
  if (dtype.code == kDLBfloat) {
    throw Error("bfloat16 has no NumPy dtype; .numpy() converts it to float32");
  }
  if (dtype.isString()) return py::dtype("object");
  if (dtype.lanes != 1) {
    throw Error(strCat("a vector element type (", dtype.str(), ") has no NumPy dtype"));
  }
  return py::dtype(dtype.str());  // "float32", "int64", "bool", "uint8" ... are NumPy's names
}

NDArray copyToNDArray(py::handle obj, std::optional<DataType> dtype) {
  if (dtype && dtype->code == kDLBfloat && dtype->bits == 16) return bfloat16Array(obj);
  py::array source = dtype && !dtype->isString()
                         ? numpy().attr("asarray")(obj, "dtype"_a = numpyDtype(*dtype))
                         : numpy().attr("asarray")(obj);
  if (!dtype && source.dtype().kind() == 'O' && !holdsText(source)) {
    source = numpy().attr("asarray")(source.attr("tolist")());  // objects: what they hold
  }
  DataType type = dtype ? *dtype : dataTypeOf(source.dtype());
  if (type.isString()) {
    if (!isStringKind(source.dtype().kind()) && source.size() > 0) {
      throw Error(strCat("expected strings for a string tensor, got NumPy dtype '",
                         text(source.dtype()), "'"));
    }
    return stringArray(source);
  }
  NDArray out = NDArray::empty(shapeOf(source), type);
  numpy().attr("copyto")(numpyView(out, true), source, "casting"_a = "unsafe");
  return out;
}

DataType dataTypeArg(py::handle dtype) {
  if (py::isinstance<DataType>(dtype)) return dtype.cast<DataType>();
  if (py::isinstance<py::str>(dtype)) return DataType::parse(dtype.cast<std::string>());
  return dataTypeOf(py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype)));
}

NDArray shareNDArray(py::handle obj, const std::string& what) {
  if (py::isinstance<NDArray>(obj)) return obj.cast<NDArray>();
  if (py::isinstance<py::array>(obj)) {
    auto a = py::reinterpret_borrow<py::array>(obj);
    if (!viewable(a)) {
      throw Error(strCat(what, ": the NumPy array (", text(a.dtype()), text(a.attr("shape")),
                         ") is not a C-contiguous array of native byte order, so it cannot be "
                         "shared; use a kiln tensor (kiln.empty, kiln.array)"));
    }
    return viewOf(a);
  }
  if (py::hasattr(obj, "__dlpack__")) {
    try {
      return fromDlpack(obj);
    } catch (const Error& e) {
      throw Error(strCat(what, ": ", e.what()));
    }
  }
  throw Error(strCat(what, ": a ", typeName(obj),
                     " has no memory kiln can share; expected a kiln.NDArray, a NumPy array or "
                     "a tensor with __dlpack__"));
}

NDArray toNDArray(py::handle obj, bool copy, std::optional<DataType> dtype) {
  auto finish = [&](const NDArray& a) {
    if (dtype && *dtype != a.dtype()) return copyToNDArray(toNumpy(a), dtype);
    return copy ? a.clone() : a;
  };
  if (py::isinstance<NDArray>(obj)) return finish(obj.cast<NDArray>());
  if (py::isinstance<py::array>(obj)) {
    auto a = py::reinterpret_borrow<py::array>(obj);
    bool inPlace = !copy && viewable(a) && (!dtype || *dtype == dataTypeOf(a.dtype()));
    return inPlace ? viewOf(a) : copyToNDArray(obj, dtype);
  }
  if (py::hasattr(obj, "__dlpack__")) {
    try {
      return finish(fromDlpack(obj));
    } catch (const Error&) {  // a layout kiln cannot share (strided): copied through NumPy below
    }
  }
  return copyToNDArray(obj, dtype);
}

py::array toNumpy(const NDArray& a) {
  DataType type = a.dtype();
  std::vector<py::ssize_t> shape(a.shape().begin(), a.shape().end());
  if (type.isString()) {
    py::list items;
    const auto* s = a.data<std::string>();
    for (int64_t i = 0; i < a.numel(); ++i) items.append(utf8(s[i]));
    return numpy()
        .attr("array")(items, "dtype"_a = "str")
        .attr("reshape")(py::tuple(py::cast(shape)));
  }
  if (type.code == kDLBfloat && type.bits == 16) {
    py::array_t<float> out(shape);
    const auto* bits = a.data<uint16_t>();
    for (int64_t i = 0; i < a.numel(); ++i) out.mutable_data()[i] = fromBfloat16(bits[i]);
    return out;
  }
  return py::array(numpyDtype(type), shape, a.data());  // no base: NumPy copies the elements
}

runtime::Value toValue(py::handle obj) {
  if (auto scalar = scalarOf<runtime::Value>(obj)) return *scalar;
  if (py::isinstance<py::bytes>(obj) || py::isinstance<py::bytearray>(obj) ||
      py::isinstance<py::memoryview>(obj)) {
    auto bytes = py::reinterpret_steal<py::bytes>(PyBytes_FromObject(obj.ptr()));
    if (!bytes) throw py::error_already_set();
    return runtime::Bytes{bytes.cast<std::string>()};
  }
  if (py::isinstance<runtime::Device>(obj)) return obj.cast<runtime::Device>();
  if (py::isinstance<DataType>(obj)) return obj.cast<DataType>();
  if (py::isinstance<runtime::Module>(obj)) return obj.cast<runtime::Module>();
  if (py::isinstance<runtime::PackedFunc>(obj)) return obj.cast<runtime::PackedFunc>();
  if (py::hasattr(obj, "_kiln_handle")) return toValue(obj.attr("_kiln_handle"));
  if (isTensorLike(obj)) return toNDArray(obj, false);
  if (py::isinstance(obj, numpy().attr("generic"))) {  // a NumPy scalar: as its Python value
    return toValue(obj.attr("item")());
  }
  if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
    auto seq = py::reinterpret_borrow<py::sequence>(obj);
    bool tensors = true;
    for (py::handle item : seq) tensors = tensors && isTensorLike(item);
    if (!tensors) return toJson(obj);
    runtime::TensorList list;
    for (py::handle item : seq) list.items.push_back(toNDArray(item, false));
    return list;
  }
  if (py::isinstance<py::dict>(obj)) return toJson(obj);
  refuseArgument(obj);
}

py::object fromValue(const runtime::Value& value) {
  switch (value.typeCode()) {
    case kKilnNone:
      return py::none();
    case kKilnInt:
      return py::int_(value.asInt());
    case kKilnFloat:
      return py::float_(value.asDouble());
    case kKilnBool:
      return py::bool_(value.asBool());
    case kKilnString:
      return utf8(value.asString());
    case kKilnBytes:
      return py::bytes(value.asBytes().data);
    case kKilnTensor:
      return py::cast(value.asNDArray());
    case kKilnDevice:
      return py::cast(value.asDevice());
    case kKilnDataType:
      return py::cast(value.asDataType());
    case kKilnJson:
      return fromJson(value.asJson());
    case kKilnModule:
      return py::cast(value.asModule());
    case kKilnFunction:
      return py::cast(value.asFunc());
    case kKilnTensorList: {
      const runtime::TensorList& list = value.asTensorList();
      if (list.none) return py::none();
      py::list items;
      for (const NDArray& t : list.items) items.append(py::cast(t));
      return items;
    }
    default:
      throw InternalError(
          strCat("a packed value of type code ", value.typeCode(), " has no Python form"));
  }
}

runtime::Args toArgs(py::handle values) {
  runtime::Args args;
  for (py::handle v : values) args.push_back(toValue(v));
  return args;
}

Json toJson(py::handle obj) {
  if (auto scalar = scalarOf<Json>(obj)) return *scalar;
  if (py::isinstance(obj, numpy().attr("generic"))) return toJson(obj.attr("item")());
  if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
    Json::Array items;
    for (py::handle item : py::reinterpret_borrow<py::sequence>(obj)) items.push_back(toJson(item));
    return items;
  }
  if (py::isinstance<py::dict>(obj)) {
    Json::Object members;
    for (auto [key, item] : py::reinterpret_borrow<py::dict>(obj)) {
      if (!py::isinstance<py::str>(key)) {
        throw py::type_error(strCat("JSON object keys must be str, got ", typeName(key)));
      }
      members[key.cast<std::string>()] = toJson(item);
    }
    return members;
  }
  throw py::type_error(strCat("a Python ", typeName(obj),
                              " has no JSON form; expected None, bool, int, float, str, a list or "
                              "a dict"));
}

py::object fromJson(const Json& json) {
  if (json.isNull()) return py::none();
  if (json.isBool()) return py::bool_(json.asBool());
  if (json.isInt()) return py::int_(json.asInt());
  if (json.isNumber()) return py::float_(json.asDouble());
  if (json.isString()) return py::str(json.asString());
  if (json.isArray()) {
    py::list items;
    for (const Json& item : json.asArray()) items.append(fromJson(item));
    return items;
  }
  py::dict members;
  for (const auto& [key, item] : json.asObject()) members[py::str(key)] = fromJson(item);
  return members;
}

}  // namespace kiln::python
