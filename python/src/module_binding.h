// Modules, functions, devices and element types for Python (module_binding.cc).
#pragma once

#include <pybind11/pybind11.h>

#include "kiln/runtime/packed_func.h"

namespace kiln::python {

namespace py = pybind11;

void bindModules(py::module_& m);

// F(ARGS) with the GIL released, so other Python threads run meanwhile.
runtime::Value callReleased(const runtime::PackedFunc& f, const runtime::Args& args);

}  // namespace kiln::python
