// Kept in one place so loads, stores, closures and casts agree on every type's layout.
#include "type_map.h"

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Type.h>

#include "kiln/support/error.h"

namespace kiln::codegen {
namespace {

llvm::Type* scalarType(llvm::LLVMContext& ctx, runtime::DataType t, bool inMemory) {
  if (t.isBool()) return inMemory ? llvm::Type::getInt8Ty(ctx) : llvm::Type::getInt1Ty(ctx);
  if (t.isInt() || t.isUInt()) return llvm::Type::getIntNTy(ctx, t.bits);
  if (t.code == kDLBfloat && t.bits == 16) return llvm::Type::getBFloatTy(ctx);
  if (t.isFloat()) {
    switch (t.bits) {
      case 16:
        return llvm::Type::getHalfTy(ctx);
      case 32:
        return llvm::Type::getFloatTy(ctx);
      case 64:
        return llvm::Type::getDoubleTy(ctx);
      default:
        break;
    }
  }
  KILN_CHECK(false, "codegen has no LLVM type for ", t.str());
  return nullptr;
}

llvm::Type* withLanes(llvm::Type* scalar, runtime::DataType t) {
  if (t.lanes == 1) return scalar;
  return llvm::FixedVectorType::get(scalar, t.lanes);
}

}  // namespace

llvm::Type* valueType(llvm::LLVMContext& ctx, runtime::DataType t) {
  return withLanes(scalarType(ctx, t, false), t);
}

llvm::Type* memoryType(llvm::LLVMContext& ctx, runtime::DataType t) {
  return withLanes(scalarType(ctx, t, true), t);
}

}  // namespace kiln::codegen
