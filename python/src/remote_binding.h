// Launchers and sessions for Python (remote_binding.cc).
#pragma once

#include <pybind11/pybind11.h>

namespace kiln::python {

namespace py = pybind11;

void bindRemote(py::module_& m);

}  // namespace kiln::python
