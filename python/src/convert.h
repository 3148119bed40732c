// Conversions between Python objects and kiln's packed values, tensors and JSON: the one place
// that decides what a Python argument means to a packed function and what a result becomes.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include "kiln/runtime/packed_func.h"
#include "kiln/support/json.h"

namespace kiln::python {

namespace py = pybind11;

// The kiln element type of a NumPy dtype; throws kiln::Error naming the dtype when kiln has none.
runtime::DataType dataTypeOf(const py::dtype& dtype);
// A dtype argument: a name ('float32'), a NumPy dtype or type (np.float32), or a kiln DataType.
runtime::DataType dataTypeArg(py::handle dtype);
// The NumPy dtype of a kiln element type; throws kiln::Error for bfloat16 (NumPy has none).
py::dtype numpyDtype(runtime::DataType dtype);

// OBJ as an NDArray. A kiln NDArray is itself; anything with __dlpack__ (a PyTorch tensor) is
// shared without a copy; a C-contiguous NumPy array of native byte order is viewed in place (the
// view keeps the array alive); anything else NumPy can turn into an array is copied into a new
// 64-byte aligned array. With COPY, the result never shares memory with OBJ. DTYPE, when given,
// converts the elements (always a copy when it differs).
runtime::NDArray toNDArray(py::handle obj, bool copy,
                           std::optional<runtime::DataType> dtype = std::nullopt);
// OBJ as an NDArray sharing its memory, for arguments the executor keeps or writes
// (set_input_zero_copy, set_output_zero_copy, get_output's OUT): a kiln NDArray, a C-contiguous
// NumPy array of native byte order, or a compact tensor through DLPack. Throws kiln::Error naming
// WHAT and why OBJ cannot be shared (a copy would silently be bound instead).
runtime::NDArray shareNDArray(py::handle obj, const std::string& what);
// A new array holding OBJ's elements (strings, numbers or an array of them) as DTYPE or as the
// element type NumPy infers.
runtime::NDArray copyToNDArray(py::handle obj, std::optional<runtime::DataType> dtype);
// A NumPy copy of ARRAY (strings become a NumPy str array, bfloat16 becomes float32).
py::array toNumpy(const runtime::NDArray& array);

// What OBJ means as a packed-function argument: None, bool, int, float, str, bytes, Device,
// DataType, Module, Function, a tensor (anything toNDArray takes), a list or tuple of tensors (a
// sequence), a dict (JSON). Throws py::type_error naming the Python type otherwise.
runtime::Value toValue(py::handle obj);
// Each item of VALUES (a Python sequence) as toValue makes it: a packed function's arguments.
runtime::Args toArgs(py::handle values);
// A packed-function result as a Python object: tensors as kiln NDArrays, sequences as lists of
// them (an optional holding nothing is None), JSON as dicts and lists.
py::object fromValue(const runtime::Value& value);

Json toJson(py::handle obj);
py::object fromJson(const Json& json);

}  // namespace kiln::python
