// Modules, functions, devices and element types for Python (module_binding.cc).
#pragma once

#include <pybind11/pybind11.h>

namespace kiln::python {

namespace py = pybind11;

void bindModules(py::module_& m);

}  // namespace kiln::python
