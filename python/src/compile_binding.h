// The compiler for Python (compile_binding.cc).
#pragma once

#include <pybind11/pybind11.h>

namespace kiln::python {

namespace py = pybind11;

void bindCompile(py::module_& m);

}  // namespace kiln::python
