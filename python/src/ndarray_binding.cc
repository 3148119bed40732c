// kiln.NDArray: a kiln tensor seen from Python. NumPy views it through the buffer protocol,
// anything DLPack-aware through __dlpack__, both without a copy; .numpy() copies.
#include "ndarray_binding.h"

#include "convert.h"
#include "kiln/support/error.h"

namespace kiln::python {

using namespace pybind11::literals;
using runtime::DataType;
using runtime::NDArray;

namespace {

constexpr const char* kDltensor = "dltensor";
constexpr const char* kUsedDltensor = "used_dltensor";

// A capsule nobody consumed still owns its tensor.
void deleteUnusedCapsule(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kDltensor) == 0) return;
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kDltensor));
  if (t != nullptr && t->deleter != nullptr) t->deleter(t);
}

// A tensor from another framework, released under the GIL: NumPy's deleter drops a Python
// reference, and kiln may let go of the tensor on a thread that does not hold the GIL.
struct GuardedTensor {
  DLManagedTensor outer;
  DLManagedTensor* inner;
};

void deleteGuarded(DLManagedTensor* self) {
  auto* guarded = static_cast<GuardedTensor*>(self->manager_ctx);
  if (Py_IsInitialized() != 0 && guarded->inner->deleter != nullptr) {
    py::gil_scoped_acquire gil;
    guarded->inner->deleter(guarded->inner);
  }
  delete guarded;
}

// The buffer-protocol format of DTYPE, or "" when there is none.
std::string bufferFormat(DataType t) {
  if (t.lanes != 1) return "";
  if (t.isBool()) return "?";
  if (t.isFloat()) return t.bits == 16 ? "e" : t.bits == 32 ? "f" : t.bits == 64 ? "d" : "";
  const char* ints = t.isInt() ? "bhiq" : t.isUInt() ? "BHIQ" : "";
  if (*ints == '\0') return "";
  int index = t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : t.bits == 64 ? 3 : -1;
  return index < 0 ? "" : std::string(1, ints[index]);
}

std::vector<py::ssize_t> compactStrides(const NDArray& a) {
  std::vector<py::ssize_t> strides(a.shape().size());
  auto step = static_cast<py::ssize_t>(a.dtype().bytes());
  for (size_t i = strides.size(); i-- > 0;) {
    strides[i] = step;
    step *= static_cast<py::ssize_t>(a.shape()[i]);
  }
  return strides;
}

void refuseView(const NDArray& a, const char* what) {
  DataType t = a.dtype();
  if (bufferFormat(t).empty()) {
    throw Error(strCat(what, ": a ", t.str(), " tensor has no NumPy view",
                       t.isString() ? " (its elements are strings): use .numpy(), which copies"
                                    : ": use .numpy(), which copies (bfloat16 as float32)"));
  }
}

py::capsule exportDlpack(const NDArray& a, const py::object& copy) {
  if (a.readOnly() && (copy.is_none() || !copy.cast<bool>())) {
    throw py::buffer_error(
        strCat("this ", a.dtype().str(), a.shape().empty() ? "" : runtime::shapeStr(a.shape()),
               " tensor is read-only (weights mapped from a library) and DLPack cannot mark it so; "
               "export a copy: __dlpack__(copy=True) or .copy()"));
  }
  NDArray source = !copy.is_none() && copy.cast<bool>() ? a.clone() : a;
  DLManagedTensor* t = source.toDLPack();
  PyObject* capsule = PyCapsule_New(t, kDltensor, deleteUnusedCapsule);
  if (capsule == nullptr) {
    t->deleter(t);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

// What a Py_buffer of an NDArray points into until it is released.
struct BufferShape {
  std::string format;
  std::vector<py::ssize_t> shape, strides;
};

// The buffer protocol by hand: pybind11 2.10 cannot report a refusal from def_buffer (an
// exception there terminates the process), and strings and bfloat16 have no buffer format.
int getBuffer(PyObject* obj, Py_buffer* view, int flags) {
  view->obj = nullptr;
  try {
    const auto& a = py::handle(obj).cast<const NDArray&>();
    refuseView(a, "a buffer view");
    int spread = 0;  // dims longer than 1: with two or more, C order is not Fortran order
    for (int64_t d : a.shape()) spread += d > 1 ? 1 : 0;
    if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && spread > 1) {
      throw Error("a kiln tensor is C-contiguous, not Fortran-contiguous");
    }
    if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && a.readOnly()) {
      throw Error("the tensor is read-only (weights mapped from a library)");
    }
    auto* held = new BufferShape{
        bufferFormat(a.dtype()), {a.shape().begin(), a.shape().end()}, compactStrides(a)};
    view->buf = a.data();
    view->len = static_cast<py::ssize_t>(a.nbytes());
    view->itemsize = static_cast<py::ssize_t>(a.dtype().bytes());
    view->readonly = a.readOnly() ? 1 : 0;
    view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT ? held->format.data() : nullptr;
    view->ndim = a.ndim();
    view->shape = (flags & PyBUF_ND) == PyBUF_ND ? held->shape.data() : nullptr;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? held->strides.data() : nullptr;
    view->suboffsets = nullptr;
    view->internal = held;
    view->obj = obj;
    Py_INCREF(obj);
    return 0;
  } catch (const std::exception& e) {  // a refusal above, or not a kiln.NDArray
    PyErr_SetString(PyExc_BufferError, e.what());
    return -1;
  }
}

void releaseBuffer(PyObject* /*obj*/, Py_buffer* view) {
  delete static_cast<BufferShape*>(view->internal);
}

void installBufferProtocol(py::class_<NDArray>& cls) {
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  type->tp_as_buffer->bf_getbuffer = getBuffer;
  type->tp_as_buffer->bf_releasebuffer = releaseBuffer;
}

std::string describe(const NDArray& a) {
  return strCat("kiln.NDArray(", a.dtype().str(), runtime::shapeStr(a.shape()), ", ",
                a.device().str(), a.readOnly() ? ", read-only" : "", ")");
}

}  // namespace

py::array numpyView(const NDArray& a, bool writable) {
  refuseView(a, "a NumPy view");
  auto* keep = new NDArray(a);
  py::capsule base(keep, [](void* p) { delete static_cast<NDArray*>(p); });
  std::vector<py::ssize_t> shape(a.shape().begin(), a.shape().end());
  py::array view(numpyDtype(a.dtype()), shape, compactStrides(a), a.data(), base);
  if (!writable || a.readOnly()) view.attr("setflags")("write"_a = false);
  return view;
}

NDArray fromDlpack(py::handle obj) {
  py::object capsule;
  if (PyCapsule_CheckExact(obj.ptr()) != 0) {
    capsule = py::reinterpret_borrow<py::object>(obj);
  } else {
    if (py::hasattr(obj, "__dlpack_device__")) {
      py::tuple device = obj.attr("__dlpack_device__")();
      if (device[0].cast<int>() != kDLCPU) {
        throw Error(strCat("from_dlpack: the tensor is on DLPack device type ",
                           device[0].cast<int>(), "; kiln tensors live on the CPU (type ",
                           static_cast<int>(kDLCPU), ")"));
      }
    }
    capsule = obj.attr("__dlpack__")();
  }
  if (PyCapsule_IsValid(capsule.ptr(), kDltensor) == 0) {
    throw Error(
        "from_dlpack: expected an unconsumed DLPack capsule named 'dltensor' (each capsule can be "
        "consumed once)");
  }
  auto* inner = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kDltensor));
  auto* guarded = new GuardedTensor{*inner, inner};
  guarded->outer.manager_ctx = guarded;
  guarded->outer.deleter = deleteGuarded;
  NDArray a;
  try {
    a = NDArray::fromDLPack(&guarded->outer);
  } catch (...) {
    delete guarded;  // the capsule still owns the tensor
    throw;
  }
  PyCapsule_SetName(capsule.ptr(), kUsedDltensor);
  return a;
}

void bindNDArray(py::module_& m) {
  py::class_<NDArray> cls(m, "NDArray", py::buffer_protocol(), R"(A kiln tensor on the CPU.

Compact, row-major memory that kiln's executors read and write. ``numpy.asarray(t)`` and
``numpy.from_dlpack(t)`` view it without a copy (read-only for weights mapped from a library),
``t.numpy()`` copies it. Make one with :func:`kiln.array`, :func:`kiln.empty` or
:func:`kiln.from_dlpack`.)");
  cls.def_property_readonly(
         "shape", [](const NDArray& a) { return py::tuple(py::cast(a.shape())); },
         "The dims, a tuple of ints.")
      .def_property_readonly(
          "dtype", [](const NDArray& a) { return a.dtype().str(); },
          "The element type: 'float32', 'int64', 'bool', 'string', ...")
      .def_property_readonly("device", &NDArray::device, "Where the tensor lives: cpu(0).")
      .def_property_readonly("ndim", &NDArray::ndim, "The number of dims.")
      .def_property_readonly("size", &NDArray::numel, "The number of elements.")
      .def_property_readonly("nbytes", &NDArray::nbytes, "The size of the elements in bytes.")
      .def_property_readonly("readonly", &NDArray::readOnly,
                             "True for weights mapped read-only from a library.")
      .def_property_readonly(
          "data_ptr", [](const NDArray& a) { return reinterpret_cast<uintptr_t>(a.data()); },
          "The address of the first element (64-byte aligned for arrays kiln allocated).")
      .def("numpy", &toNumpy,
           "A NumPy copy (strings as a str array, bfloat16 as float32). ``numpy.asarray(t)`` "
           "views the memory instead.")
      .def("copy", &NDArray::clone, "A new tensor holding a copy.")
      .def(
          "copyfrom",
          [](NDArray& self, py::handle source) {
            self.copyFrom(toNDArray(source, false, self.dtype()));
            return self;
          },
          "source"_a,
          "Copies SOURCE (a kiln.NDArray, a NumPy array or anything array-like of the same shape) "
          "into this tensor; returns it.")
      .def(
          "__dlpack__",
          [](const NDArray& a, const py::object& /*stream*/, const py::object& /*maxVersion*/,
             const py::object& /*device*/,
             const py::object& copy) { return exportDlpack(a, copy); },
          py::kw_only(), "stream"_a = py::none(), "max_version"_a = py::none(),
          "dl_device"_a = py::none(), "copy"_a = py::none(),
          "A DLPack capsule of this tensor, shared without a copy unless COPY is true.")
      .def("__dlpack_device__",
           [](const NDArray& a) {
             return py::make_tuple(static_cast<int>(a.device().type), a.device().id);
           })
      .def(
          "__array__",
          [](const NDArray& a, const py::object& dtype) {
            py::array out = toNumpy(a);
            return dtype.is_none() ? out : py::array(out.attr("astype")(dtype));
          },
          "dtype"_a = py::none())
      .def("__len__",
           [](const NDArray& a) {
             if (a.ndim() == 0) throw py::type_error("len() of a 0-d tensor");
             return a.shape()[0];
           })
      .def("__repr__", &describe);
  installBufferProtocol(cls);

  m.def(
      "array",
      [](py::handle obj, const py::object& dtype) {
        std::optional<DataType> type;
        if (!dtype.is_none()) type = dataTypeArg(dtype);
        return toNDArray(obj, true, type);
      },
      "obj"_a, "dtype"_a = py::none(),
      R"(A new kiln tensor holding a copy of OBJ.

OBJ is a NumPy array, a kiln.NDArray, a tensor with __dlpack__ or anything ``numpy.asarray``
takes (nested lists, scalars); DTYPE ('float32', 'int64', 'bfloat16', 'string', ...) converts
the elements, else the element type is OBJ's. The memory is 64-byte aligned, so the tensor can
be bound with an executor's set_input_zero_copy.)");
  m.def(
      "empty",
      [](const std::vector<int64_t>& shape, const py::object& dtype) {
        return NDArray::empty(shape, dataTypeArg(dtype));
      },
      "shape"_a, "dtype"_a = "float32",
      "A new, uninitialised, 64-byte aligned tensor of SHAPE and DTYPE.");
  m.def(
      "share", [](py::handle obj, const std::string& what) { return shareNDArray(obj, what); },
      "obj"_a, "what"_a = "sharing",
      "OBJ as a kiln tensor sharing its memory; KilnError when it cannot be shared.");
  m.def(
      "from_dlpack", &fromDlpack, "obj"_a,
      R"(The tensor OBJ exports through DLPack (a PyTorch tensor, a NumPy array, a capsule), shared
without a copy: writes through either are seen by both. OBJ must be compact (row-major) and on
the CPU; a strided tensor is refused (make it contiguous first).)");
}

}  // namespace kiln::python
