// What every executor kind checks and reports the same way: tensor descriptions, input and output
// positions from names or indices, and caller buffers bound for zero-copy I/O.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "kiln/runtime/ndarray.h"
#include "kiln/runtime/packed_func.h"
#include "kiln/support/json.h"

namespace kiln::runtime {

// Kernels declare every buffer argument 64-byte aligned (codegen's function_lowering).
inline constexpr uintptr_t kKernelAlignment = 64;

// {"name", "shape", "dtype"}: one entry of get_input_info / get_output_info.
Json tensorInfo(const std::string& name, const Shape& shape, DataType dtype);

// Which of a model's COUNT inputs WHICH (a name or an index) means; INDEX_OF maps a name to its
// position or -1, NAMES lists them for the error (called only then: a decode step's set_input
// allocates nothing). Throws kiln::Error naming FUNCTION and MODEL.
size_t inputPosition(const char* function, const Value& which, const std::string& model,
                     size_t count, const std::function<int64_t(const std::string&)>& indexOf,
                     const std::function<std::string()>& names);
// Which of a model's COUNT outputs index WHICH means.
size_t outputPosition(const char* function, const Value& which, const std::string& model,
                      size_t count);

// Throws kiln::Error naming FUNCTION and tensor NAME unless BUFFER can stand in for it: the same
// shape and dtype, on the cpu, 64-byte aligned, and writable when WRITTEN (an output).
void checkBindable(const char* function, const std::string& name, const Shape& shape,
                   DataType dtype, const NDArray& buffer, bool written);

}  // namespace kiln::runtime
