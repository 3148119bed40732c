// The bookkeeping every lowered function needs: bindings, attributes and the final return.
#include "function_lowering.h"

#include <llvm/IR/Attributes.h>
#include <llvm/IR/Function.h>

#include "kiln/support/error.h"

namespace kiln::codegen {

void setCommonAttributes(llvm::Function* fn, const ModuleState& ms) {
  fn->addFnAttr("target-cpu", ms.cpu);
  if (!ms.features.empty()) fn->addFnAttr("target-features", ms.features);
  // As clang does by default: lets LLVM speculate floating-point operations out of branches.
  fn->addFnAttr("no-trapping-math", "true");
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  // kiln chooses the vector width: without these, LLVM's models of several AVX-512 CPUs
  // (skylake-avx512, icelake-server) would split kiln's 512-bit vectors into 256-bit halves.
  if (ms.vectorLanes > 1) {
    std::string bits = std::to_string(ms.vectorLanes * 32);
    fn->addFnAttr("prefer-vector-width", bits);
    fn->addFnAttr("min-legal-vector-width", bits);
  }
}

void setBufferParamAttributes(llvm::Function* fn, unsigned arg, const tir::BufferNode& buffer) {
  fn->addParamAttr(arg, llvm::Attribute::NoAlias);
  fn->addParamAttr(arg, llvm::Attribute::NonNull);
  fn->addParamAttr(arg, llvm::Attribute::NoUndef);
  fn->addParamAttr(arg, llvm::Attribute::getWithAlignment(fn->getContext(), llvm::Align(64)));
  int64_t bytes = buffer.numel() * static_cast<int64_t>(buffer.dtype.bytes());
  if (bytes > 0) fn->addDereferenceableParamAttr(arg, static_cast<uint64_t>(bytes));
}

FunctionLowering::FunctionLowering(ModuleState& ms, llvm::Function* fn, bool serialOnly)
    : ms_(ms),
      fn_(fn),
      ctx_(fn->getContext()),
      b_(fn->getContext()),
      entry_(llvm::BasicBlock::Create(fn->getContext(), "entry", fn)),
      serialOnly_(serialOnly) {
  b_.SetInsertPoint(entry_);
  // Only contraction into FMA: reassociation would change results beyond the scalar reference.
  llvm::FastMathFlags fmf;
  fmf.setAllowContract(true);
  b_.setFastMathFlags(fmf);
}

void FunctionLowering::bindVar(const std::string& name, llvm::Value* value) {
  vars_[name].push_back(value);
}

void FunctionLowering::unbindVar(const std::string& name) {
  auto it = vars_.find(name);
  KILN_CHECK(it != vars_.end() && !it->second.empty(), "unbinding unbound variable ", name);
  it->second.pop_back();
}

void FunctionLowering::bindBuffer(const tir::BufferNode* buffer, llvm::Value* ptr) {
  buffers_[buffer] = ptr;
}

llvm::Value* FunctionLowering::lookupVar(const std::string& name) const {
  auto it = vars_.find(name);
  KILN_CHECK(it != vars_.end() && !it->second.empty(), "variable '", name,
             "' is used outside the loop or let that binds it");
  return it->second.back();
}

llvm::Value* FunctionLowering::lookupBuffer(const tir::BufferNode* buffer) const {
  auto it = buffers_.find(buffer);
  KILN_CHECK(it != buffers_.end(), "buffer '", buffer->name,
             "' is neither a kernel parameter nor allocated around its use");
  return it->second;
}

void FunctionLowering::finish() {
  if (b_.GetInsertBlock()->getTerminator() == nullptr) emitReturn(b_.getInt32(0));
}

}  // namespace kiln::codegen
