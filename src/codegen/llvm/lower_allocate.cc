// Local buffers: small ones are allocas in the entry block (promoted to registers by SROA/mem2reg),
// large ones come from the heap because pool threads have small stacks.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Module.h>

#include "function_lowering.h"
#include "kiln/support/error.h"
#include "type_map.h"

namespace kiln::codegen {

void FunctionLowering::lowerAllocate(const tir::StmtNode& s) {
  KILN_CHECK(s.buffer != nullptr, "allocate without a buffer");
  const tir::BufferNode* buffer = s.buffer.get();
  int64_t numel = buffer->numel();
  int64_t bytes = numel * static_cast<int64_t>(buffer->dtype.bytes());
  KILN_CHECK(numel >= 0, "buffer '", buffer->name, "' has negative size");
  if (bytes <= kMaxStackBufferBytes) {
    llvm::IRBuilder<> entryBuilder(entry_, entry_->begin());
    auto* arrayType =
        llvm::ArrayType::get(memoryType(ctx_, buffer->dtype), static_cast<uint64_t>(numel));
    llvm::AllocaInst* slot = entryBuilder.CreateAlloca(arrayType, nullptr, buffer->name);
    slot->setAlignment(llvm::Align(64));
    bindBuffer(buffer, slot);
    lowerStmt(s.body);
    buffers_.erase(buffer);
    return;
  }
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::FunctionCallee alignedAlloc = ms_.module->getOrInsertFunction(
      "aligned_alloc", llvm::FunctionType::get(b_.getPtrTy(), {i64, i64}, false));
  llvm::FunctionCallee freeFn = ms_.module->getOrInsertFunction(
      "free", llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy()}, false));
  int64_t rounded = (bytes + 63) / 64 * 64;  // aligned_alloc wants a multiple of the alignment
  llvm::Value* ptr = b_.CreateCall(alignedAlloc, {b_.getInt64(64), b_.getInt64(rounded)});
  auto* failed = llvm::BasicBlock::Create(ctx_, "alloc.failed", fn_);
  auto* ok = llvm::BasicBlock::Create(ctx_, "alloc.ok", fn_);
  b_.CreateCondBr(b_.CreateIsNull(ptr), failed, ok);
  b_.SetInsertPoint(failed);
  emitReturn(b_.getInt32(kOutOfMemoryStatus));
  b_.SetInsertPoint(ok);
  heapBuffers_.push_back(ptr);
  bindBuffer(buffer, ptr);
  lowerStmt(s.body);
  buffers_.erase(buffer);
  heapBuffers_.pop_back();
  b_.CreateCall(freeFn, {ptr});
}

}  // namespace kiln::codegen
