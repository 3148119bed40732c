// kiln.NDArray for Python: NumPy's buffer protocol, DLPack both ways, and the array constructors.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "kiln/runtime/ndarray.h"

namespace kiln::python {

namespace py = pybind11;

void bindNDArray(py::module_& m);

// A NumPy array over ARRAY's memory, without a copy (it keeps ARRAY alive); WRITABLE unless the
// array is read-only. Throws kiln::Error for strings and bfloat16, which NumPy cannot view.
py::array numpyView(const runtime::NDArray& array, bool writable);
// The tensor OBJ exports through DLPack (OBJ.__dlpack__(), or a "dltensor" capsule), shared
// without a copy. Throws kiln::Error when it is not a compact CPU tensor; OBJ then stays as it was.
runtime::NDArray fromDlpack(py::handle obj);

}  // namespace kiln::python
