// Parallel loops are outlined into `i32 body(i64 begin, i64 end, ptr closure)` and handed to the
// runtime's pool through __kiln_backend_api; without a runtime the body runs inline over the whole
// range. The closure carries every buffer and variable the loop body reads from outside.
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>

#include "free_vars.h"
#include "function_lowering.h"
#include "kiln/support/error.h"

namespace kiln::codegen {

void FunctionLowering::lowerParallelFor(const tir::StmtNode& s) {
  FreeVars fv = collectFreeVars(s.body, s.loopVar->name);
  llvm::Value* begin = lowerExpr(s.min);
  llvm::Value* extent = lowerExpr(s.extent);

  // Closure layout: loop start, buffer pointers, free variables.
  std::vector<llvm::Value*> fields{begin};
  for (const tir::Buffer& buffer : fv.buffers) fields.push_back(lookupBuffer(buffer.get()));
  for (const std::string& name : fv.vars) fields.push_back(lookupVar(name));
  std::vector<llvm::Type*> types;
  types.reserve(fields.size());
  for (llvm::Value* v : fields) types.push_back(v->getType());
  auto* closureType = llvm::StructType::get(ctx_, types);
  llvm::Function* body = outlineParallelBody(s, fv, closureType);

  llvm::IRBuilder<> entryBuilder(entry_, entry_->begin());
  llvm::AllocaInst* closure = entryBuilder.CreateAlloca(closureType, nullptr, "closure");
  for (size_t k = 0; k < fields.size(); ++k) {
    b_.CreateStore(fields[k], b_.CreateStructGEP(closureType, closure, static_cast<unsigned>(k)));
  }

  auto* launch = llvm::BasicBlock::Create(ctx_, "par.launch", fn_);
  auto* viaApi = llvm::BasicBlock::Create(ctx_, "par.pool", fn_);
  auto* inline_ = llvm::BasicBlock::Create(ctx_, "par.inline", fn_);
  auto* join = llvm::BasicBlock::Create(ctx_, "par.join", fn_);
  auto* done = llvm::BasicBlock::Create(ctx_, "par.done", fn_);
  b_.CreateCondBr(b_.CreateICmpSGT(extent, b_.getInt64(0)), launch, done);

  b_.SetInsertPoint(launch);
  llvm::Type* ptrType = b_.getPtrTy();
  const llvm::DataLayout& layout = ms_.module->getDataLayout();
  llvm::Value* api =
      b_.CreateAlignedLoad(ptrType, ms_.backendApi, layout.getPointerABIAlignment(0), "api");
  b_.CreateCondBr(b_.CreateIsNull(api), inline_, viaApi);

  b_.SetInsertPoint(viaApi);
  // KilnBackendApi { uint32_t version; parallel_launch fn; }
  auto* apiType = llvm::StructType::get(ctx_, {b_.getInt32Ty(), ptrType});
  llvm::Value* launchFn = b_.CreateAlignedLoad(ptrType, b_.CreateStructGEP(apiType, api, 1),
                                               layout.getPointerABIAlignment(0));
  auto* launchType =
      llvm::FunctionType::get(b_.getInt32Ty(), {ptrType, ptrType, b_.getInt64Ty()}, false);
  llvm::Value* poolStatus = b_.CreateCall(launchType, launchFn, {body, closure, extent});
  b_.CreateBr(join);

  b_.SetInsertPoint(inline_);
  llvm::Value* inlineStatus = b_.CreateCall(body, {b_.getInt64(0), extent, closure});
  b_.CreateBr(join);

  b_.SetInsertPoint(join);
  llvm::PHINode* status = b_.CreatePHI(b_.getInt32Ty(), 2, "status");
  status->addIncoming(poolStatus, viaApi);
  status->addIncoming(inlineStatus, inline_);
  returnIfFailed(status);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

// The entry point the pool calls: unpacks the closure and calls the implementation, whose
// parameters can then carry noalias and alignment facts that a closure's fields cannot.
llvm::Function* FunctionLowering::outlineParallelBody(const tir::StmtNode& s, const FreeVars& fv,
                                                      llvm::StructType* closureType) {
  llvm::Function* impl = outlineParallelImpl(s, fv, closureType);
  llvm::Type* i64 = b_.getInt64Ty();
  auto* type = llvm::FunctionType::get(b_.getInt32Ty(), {i64, i64, b_.getPtrTy()}, false);
  auto* body = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                      fn_->getName() + ".par", ms_.module);
  setCommonAttributes(body, ms_);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", body));
  std::vector<llvm::Value*> args{body->getArg(0), body->getArg(1)};
  llvm::Value* closure = body->getArg(2);
  for (unsigned k = 0; k < closureType->getNumElements(); ++k) {
    llvm::Type* fieldType = closureType->getElementType(k);
    args.push_back(b.CreateLoad(fieldType, b.CreateStructGEP(closureType, closure, k)));
  }
  b.CreateRet(b.CreateCall(impl, args));
  return body;
}

// `i32 impl(i64 begin, i64 end, i64 min, buffers..., vars...)`: iterations [begin, end) of the
// loop, run serially (a parallel loop nested in it runs serially too).
llvm::Function* FunctionLowering::outlineParallelImpl(const tir::StmtNode& s, const FreeVars& fv,
                                                      llvm::StructType* closureType) {
  std::vector<llvm::Type*> params{b_.getInt64Ty(), b_.getInt64Ty()};
  for (llvm::Type* t : closureType->elements()) params.push_back(t);
  auto* type = llvm::FunctionType::get(b_.getInt32Ty(), params, false);
  auto* impl = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                      fn_->getName() + ".par.impl", ms_.module);
  setCommonAttributes(impl, ms_);
  constexpr unsigned kFirstBuffer = 3;  // after begin, end and the loop's min
  for (unsigned k = 0; k < fv.buffers.size(); ++k) {
    setBufferParamAttributes(impl, kFirstBuffer + k, *fv.buffers[k]);
  }

  FunctionLowering inner(ms_, impl, /*serialOnly=*/true);
  for (unsigned k = 0; k < fv.buffers.size(); ++k) {
    inner.bindBuffer(fv.buffers[k].get(), impl->getArg(kFirstBuffer + k));
  }
  unsigned firstVar = kFirstBuffer + static_cast<unsigned>(fv.buffers.size());
  for (unsigned k = 0; k < fv.vars.size(); ++k) {
    inner.bindVar(fv.vars[k], impl->getArg(firstVar + k));
  }
  llvm::IRBuilder<>& b = inner.b_;
  llvm::Value* min = impl->getArg(2);
  llvm::Value* lo = b.CreateNSWAdd(min, impl->getArg(0));
  llvm::Value* hi = b.CreateNSWAdd(min, impl->getArg(1));
  DataType varType = s.loopVar->dtype;
  inner.emitLoop(lo, hi, /*isSigned=*/true, nullptr, [&](llvm::Value* i) {
    llvm::Value* v =
        varType == DataType::int64() ? i : inner.castValue(i, DataType::int64(), varType);
    inner.bindVar(s.loopVar->name, v);
    inner.lowerStmt(s.body);
    inner.unbindVar(s.loopVar->name);
  });
  inner.finish();
  return impl;
}

void FunctionLowering::returnIfFailed(llvm::Value* status) {
  auto* failed = llvm::BasicBlock::Create(ctx_, "failed", fn_);
  auto* ok = llvm::BasicBlock::Create(ctx_, "ok", fn_);
  b_.CreateCondBr(b_.CreateICmpNE(status, b_.getInt32(0)), failed, ok);
  b_.SetInsertPoint(failed);
  emitReturn(status);
  b_.SetInsertPoint(ok);
}

void FunctionLowering::emitReturn(llvm::Value* status) {
  if (!heapBuffers_.empty()) {
    llvm::FunctionCallee freeFn = ms_.module->getOrInsertFunction(
        "free", llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy()}, false));
    for (auto it = heapBuffers_.rbegin(); it != heapBuffers_.rend(); ++it) {
      b_.CreateCall(freeFn, {*it});
    }
  }
  b_.CreateRet(status);
}

}  // namespace kiln::codegen
