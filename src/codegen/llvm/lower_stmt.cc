// Statements of the loop IR become control flow and memory accesses; loops, allocations and
// parallel loops have files of their own.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Module.h>

#include <algorithm>

#include "function_lowering.h"
#include "kiln/support/error.h"
#include "type_map.h"

namespace kiln::codegen {

using kernel::StmtKind;

void FunctionLowering::lowerStmt(const kernel::Stmt& s) {
  if (s == nullptr) return;
  switch (s->kind) {
    case StmtKind::kFor:
      return lowerFor(*s);
    case StmtKind::kStore:
      return lowerStore(*s);
    case StmtKind::kSeq:
      for (const kernel::Stmt& child : s->seq) lowerStmt(child);
      return;
    case StmtKind::kLet:
      return lowerLet(*s);
    case StmtKind::kIf:
      return lowerIf(*s);
    case StmtKind::kAllocate:
      return lowerAllocate(*s);
  }
  KILN_CHECK(false, "unknown statement kind ", static_cast<int>(s->kind));
}

// A value wider than the buffer's element (float32x8 into a float32 buffer) accesses that many
// consecutive elements.
llvm::Type* FunctionLowering::accessType(const kernel::Buffer& buffer, DataType valueType) const {
  DataType t = buffer->dtype;
  t.lanes = std::max(t.lanes, valueType.lanes);
  return memoryType(ctx_, t);
}

llvm::Value* FunctionLowering::elementPointer(const kernel::Buffer& buffer,
                                              const kernel::Expr& index) {
  llvm::Value* base = lookupBuffer(buffer.get());
  llvm::Value* i = lowerAs(index, DataType::int64());
  return b_.CreateInBoundsGEP(memoryType(ctx_, buffer->dtype), base, i);
}

void FunctionLowering::lowerStore(const kernel::StmtNode& s) {
  KILN_CHECK(s.buffer != nullptr && s.value != nullptr, "store without buffer or value");
  DataType stored = s.buffer->dtype;
  stored.lanes = std::max(stored.lanes, s.value->dtype.lanes);
  llvm::Value* v = lowerAs(s.value, stored);
  llvm::Type* type = accessType(s.buffer, s.value->dtype);
  if (stored.isBool()) v = b_.CreateZExt(v, type);
  llvm::Value* ptr = elementPointer(s.buffer, s.index);
  llvm::Align align =
      ms_.module->getDataLayout().getABITypeAlign(memoryType(ctx_, s.buffer->dtype));
  b_.CreateAlignedStore(v, ptr, align);
}

void FunctionLowering::lowerLet(const kernel::StmtNode& s) {
  KILN_CHECK(s.letVar != nullptr && s.letVar->kind == kernel::ExprKind::kVar,
             "let binds a non-variable");
  llvm::Value* v = lowerAs(s.value, s.letVar->dtype);
  bindVar(s.letVar->name, v);
  lowerStmt(s.body);
  unbindVar(s.letVar->name);
}

void FunctionLowering::lowerIf(const kernel::StmtNode& s) {
  llvm::Value* cond = toBool(lowerExpr(s.value), s.value->dtype);
  auto* thenBlock = llvm::BasicBlock::Create(ctx_, "if.then", fn_);
  auto* elseBlock = s.elseBody ? llvm::BasicBlock::Create(ctx_, "if.else", fn_) : nullptr;
  auto* endBlock = llvm::BasicBlock::Create(ctx_, "if.end", fn_);
  b_.CreateCondBr(cond, thenBlock, elseBlock ? elseBlock : endBlock);
  b_.SetInsertPoint(thenBlock);
  lowerStmt(s.body);
  b_.CreateBr(endBlock);
  if (elseBlock) {
    b_.SetInsertPoint(elseBlock);
    lowerStmt(s.elseBody);
    b_.CreateBr(endBlock);
  }
  b_.SetInsertPoint(endBlock);
}

}  // namespace kiln::codegen
