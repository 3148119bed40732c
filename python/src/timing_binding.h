// Timing and profiling for Python (timing_binding.cc).
#pragma once

#include <pybind11/pybind11.h>

namespace kiln::python {

namespace py = pybind11;

void bindTiming(py::module_& m);

}  // namespace kiln::python
