// Loop-IR element types map to LLVM types in two ways: as values in registers and as bytes in
// memory.
#pragma once

#include "kiln/runtime/data_type.h"

namespace llvm {
class LLVMContext;
class Type;
}  // namespace llvm

namespace kiln::codegen {

// The register type: bool is i1, lanes > 1 give a fixed vector.
llvm::Type* valueType(llvm::LLVMContext& ctx, runtime::DataType t);
// The in-memory element type of a buffer: like valueType but bool is one byte.
llvm::Type* memoryType(llvm::LLVMContext& ctx, runtime::DataType t);

}  // namespace kiln::codegen
