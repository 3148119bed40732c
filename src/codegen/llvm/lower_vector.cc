// Vector values and vector memory accesses: a ramp index of stride 1 is one contiguous vector load
// or store, a broadcast index one scalar access, any other vector index a gather or scatter.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Module.h>

#include "function_lowering.h"
#include "kiln/support/error.h"
#include "type_map.h"

namespace kiln::codegen {
namespace {

bool isContiguous(const tir::Expr& index) {
  return index->kind == tir::ExprKind::kRamp && tir::isIntImm(index->b, 1);
}

}  // namespace

llvm::Value* FunctionLowering::lowerRamp(const tir::ExprNode& e) {
  unsigned lanes = e.dtype.lanes;
  llvm::Value* steps = b_.CreateStepVector(llvm::FixedVectorType::get(b_.getInt64Ty(), lanes));
  llvm::Value* base = b_.CreateVectorSplat(lanes, lowerExpr(e.a));
  llvm::Value* stride = b_.CreateVectorSplat(lanes, lowerExpr(e.b));
  return b_.CreateAdd(base, b_.CreateMul(stride, steps));
}

llvm::Value* FunctionLowering::elementPointer(const tir::Buffer& buffer, const tir::Expr& index) {
  llvm::Value* base = lookupBuffer(buffer.get());
  llvm::Value* i = lowerExpr(index);
  return b_.CreateInBoundsGEP(memoryType(ctx_, buffer->dtype), base, i);
}

llvm::Value* FunctionLowering::loadElements(const tir::Buffer& buffer, const tir::Expr& index) {
  llvm::Type* elem = memoryType(ctx_, buffer->dtype);
  llvm::Align align = ms_.module->getDataLayout().getABITypeAlign(elem);
  unsigned lanes = index->dtype.lanes;
  if (lanes == 1) return b_.CreateAlignedLoad(elem, elementPointer(buffer, index), align);
  auto* vectorType = llvm::FixedVectorType::get(elem, lanes);
  if (isContiguous(index)) {
    return b_.CreateAlignedLoad(vectorType, elementPointer(buffer, index->a), align);
  }
  if (index->kind == tir::ExprKind::kBroadcast) {
    return b_.CreateVectorSplat(
        lanes, b_.CreateAlignedLoad(elem, elementPointer(buffer, index->a), align));
  }
  return b_.CreateMaskedGather(vectorType, elementPointer(buffer, index), align);
}

void FunctionLowering::storeElements(const tir::Buffer& buffer, const tir::Expr& index,
                                     llvm::Value* value) {
  llvm::Type* elem = memoryType(ctx_, buffer->dtype);
  llvm::Align align = ms_.module->getDataLayout().getABITypeAlign(elem);
  if (index->dtype.lanes == 1) {
    b_.CreateAlignedStore(value, elementPointer(buffer, index), align);
  } else if (isContiguous(index)) {
    b_.CreateAlignedStore(value, elementPointer(buffer, index->a), align);
  } else {
    b_.CreateMaskedScatter(value, elementPointer(buffer, index), align);
  }
}

}  // namespace kiln::codegen
