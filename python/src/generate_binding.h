// The generation loop for Python (generate_binding.cc).
#pragma once

#include <pybind11/pybind11.h>

namespace kiln::python {

namespace py = pybind11;

void bindGenerate(py::module_& m);

}  // namespace kiln::python
