// Statements of the loop IR become control flow and memory accesses; loops, allocations and
// parallel loops have files of their own.
#include <llvm/IR/Constants.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include <algorithm>

#include "function_lowering.h"
#include "kiln/support/error.h"
#include "type_map.h"

namespace kiln::codegen {

using tir::StmtKind;

void FunctionLowering::lowerStmt(const tir::Stmt& s) {
  if (s == nullptr) return;
  switch (s->kind) {
    case StmtKind::kFor:
      return lowerFor(*s);
    case StmtKind::kStore:
      return lowerStore(*s);
    case StmtKind::kSeq:
      for (const tir::Stmt& child : s->seq) lowerStmt(child);
      return;
    case StmtKind::kLet:
      return lowerLet(*s);
    case StmtKind::kIf:
      return lowerIf(*s);
    case StmtKind::kAllocate:
      return lowerAllocate(*s);
    case StmtKind::kAssert:
      return lowerAssert(*s);
  }
  KILN_CHECK(false, "unknown statement kind ", static_cast<int>(s->kind));
}

// A failed data check returns its status at once; the branch is marked unlikely so the check
// costs one predictable compare on the hot path.
void FunctionLowering::lowerAssert(const tir::StmtNode& s) {
  auto* failed = llvm::BasicBlock::Create(ctx_, "check_failed", fn_);
  auto* ok = llvm::BasicBlock::Create(ctx_, "check_ok", fn_);
  llvm::MDBuilder weights(ctx_);
  b_.CreateCondBr(lowerExpr(s.value), ok, failed, weights.createLikelyBranchWeights());
  b_.SetInsertPoint(failed);
  emitReturn(b_.getInt32(static_cast<uint32_t>(s.status)));
  b_.SetInsertPoint(ok);
}

void FunctionLowering::lowerStore(const tir::StmtNode& s) {
  KILN_CHECK(s.buffer != nullptr && s.value != nullptr, "store without buffer or value");
  llvm::Value* v = lowerExpr(s.value);
  if (s.buffer->dtype.isBool()) {
    v = b_.CreateZExt(v, memoryType(ctx_, tir::withLanes(s.buffer->dtype, s.value->dtype.lanes)));
  }
  storeElements(s.buffer, s.index, v);
}

void FunctionLowering::lowerLet(const tir::StmtNode& s) {
  KILN_CHECK(s.letVar != nullptr && s.letVar->kind == tir::ExprKind::kVar,
             "let binds a non-variable");
  llvm::Value* v = lowerExpr(s.value);
  bindVar(s.letVar->name, v);
  lowerStmt(s.body);
  unbindVar(s.letVar->name);
}

void FunctionLowering::lowerIf(const tir::StmtNode& s) {
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
