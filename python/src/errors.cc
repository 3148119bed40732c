// User-caused errors keep kiln's message (what was received, what was expected) as Python
// exceptions of their own classes, so callers can tell kiln's refusals from their own bugs.
#include "errors.h"

#include "kiln/runtime/rpc/socket.h"
#include "kiln/support/error.h"

namespace kiln::python {

namespace {

// A new exception class NAME of module M; kept for the life of the process (never released, so
// nothing touches it after the interpreter has gone).
PyObject* newException(py::module_& m, const char* name, const char* doc, py::handle bases) {
  std::string qualified = std::string("kiln._kiln.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (type == nullptr) throw py::error_already_set();
  m.attr(name) = py::handle(type);
  return type;
}

}  // namespace

void bindErrors(py::module_& m) {
  static PyObject* kilnError = newException(
      m, "KilnError",
      "An error caused by the input: a model, a shape, a file, a version. The message says what "
      "was received and what was expected.",
      PyExc_RuntimeError);
  static PyObject* rpcError = newException(
      m, "RpcError", "A remote session failed: the connection, the protocol or the server.",
      py::make_tuple(py::handle(kilnError), py::handle(PyExc_ConnectionError)));
  static PyObject* internalError =
      newException(m, "InternalError",
                   "A broken invariant inside kiln: a bug to report, never the input's fault.",
                   PyExc_RuntimeError);
  // pybind11's translator type takes the pointer by value.
  // NOLINTNEXTLINE(performance-unnecessary-value-param)
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const runtime::rpc::RpcError& e) {  // the more specific class before its base
      PyErr_SetString(rpcError, e.what());
    } catch (const Error& e) {
      PyErr_SetString(kilnError, e.what());
    } catch (const InternalError& e) {
      PyErr_SetString(internalError, e.what());
    }
  });
}

}  // namespace kiln::python
