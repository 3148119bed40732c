// kiln's errors as Python exceptions (errors.cc).
#pragma once

#include <pybind11/pybind11.h>

namespace kiln::python {

namespace py = pybind11;

// KilnError (kiln::Error, a RuntimeError), RpcError (a KilnError and a ConnectionError) and
// InternalError (a broken invariant: a bug in kiln).
void bindErrors(py::module_& m);

}  // namespace kiln::python
