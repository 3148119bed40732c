// Lowering one loop-IR body into one LLVM function: the variable and buffer bindings, the insertion
// point and the places where stack buffers and error returns go. Its methods are spread over the
// lower_*.cc files, one concern each.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "kiln/tir/prim_func.h"

namespace llvm {
class GlobalVariable;
class MDNode;
}  // namespace llvm

namespace kiln::codegen {

using tir::DataType;
struct FreeVars;

// What every function generated into one module shares.
struct ModuleState {
  llvm::Module* module = nullptr;
  llvm::GlobalVariable* backendApi = nullptr;  // __kiln_backend_api
  int vectorLanes = 1;
  std::string cpu;
  std::string features;
};

// Local buffers larger than this live on the heap: pool threads have small stacks.
constexpr int64_t kMaxStackBufferBytes = int64_t{256} * 1024;
// Status a kernel returns when a heap buffer cannot be allocated.
constexpr int32_t kOutOfMemoryStatus = -1;

// Gives a generated function kiln's common attributes (target CPU and features, nounwind).
void setCommonAttributes(llvm::Function* fn, const ModuleState& ms);
// Marks parameter ARG of FN as the data pointer of BUFFER: noalias, nonnull, 64-byte aligned and
// dereferenceable over the whole buffer.
void setBufferParamAttributes(llvm::Function* fn, unsigned arg, const tir::BufferNode& buffer);

class FunctionLowering {
 public:
  // Lowers into FN starting at its (new, empty) entry block. With SERIAL_ONLY, parallel loops run
  // serially: used inside an outlined parallel body.
  FunctionLowering(ModuleState& ms, llvm::Function* fn, bool serialOnly);

  void bindVar(const std::string& name, llvm::Value* value);
  void unbindVar(const std::string& name);
  void bindBuffer(const tir::BufferNode* buffer, llvm::Value* ptr);
  llvm::Value* lookupVar(const std::string& name) const;
  llvm::Value* lookupBuffer(const tir::BufferNode* buffer) const;

  void lowerStmt(const tir::Stmt& s);
  llvm::Value* lowerExpr(const tir::Expr& e);
  // Returns 0 from the function if control reaches the current end of the body.
  void finish();

 private:
  // lower_expr.cc
  llvm::Value* lowerImmediate(const tir::ExprNode& e);
  llvm::Value* lowerBinary(const tir::ExprNode& e);
  llvm::Value* floatMinMax(bool isMax, llvm::Value* a, llvm::Value* b);
  void lowerAssert(const tir::StmtNode& s);
  llvm::Value* lowerCompare(const tir::ExprNode& e);
  llvm::Value* lowerSelect(const tir::ExprNode& e);
  llvm::Value* lowerLoad(const tir::ExprNode& e);
  llvm::Value* toBool(llvm::Value* v, DataType from);
  // lower_integer_division.cc
  llvm::Value* floorDivInt(llvm::Value* a, llvm::Value* b);
  llvm::Value* floorModInt(llvm::Value* a, llvm::Value* b);
  // lower_cast.cc
  llvm::Value* castValue(llvm::Value* v, DataType from, DataType to);
  // lower_intrinsic.cc
  llvm::Value* lowerCall(const tir::ExprNode& e);
  llvm::Value* lowerTranscendental(tir::Intrinsic f, llvm::Value* x, DataType t);
  llvm::Value* lowerReduce(tir::Intrinsic f, llvm::Value* v, DataType t);
  llvm::Value* callLibm(const std::string& f32Name, const std::string& f64Name, llvm::Value* x,
                        DataType t);
  // lower_stmt.cc
  void lowerStore(const tir::StmtNode& s);
  void lowerLet(const tir::StmtNode& s);
  void lowerIf(const tir::StmtNode& s);
  // lower_vector.cc
  llvm::Value* lowerRamp(const tir::ExprNode& e);
  llvm::Value* elementPointer(const tir::Buffer& buffer, const tir::Expr& index);
  llvm::Value* loadElements(const tir::Buffer& buffer, const tir::Expr& index);
  void storeElements(const tir::Buffer& buffer, const tir::Expr& index, llvm::Value* value);
  // lower_allocate.cc
  void lowerAllocate(const tir::StmtNode& s);
  // lower_loop.cc
  void lowerFor(const tir::StmtNode& s);
  void emitLoop(llvm::Value* begin, llvm::Value* end, bool isSigned, llvm::MDNode* loopMetadata,
                const std::function<void(llvm::Value*)>& body);
  llvm::MDNode* loopMetadata(tir::ForKind kind);
  llvm::MDNode* noVectorizeMetadata();
  llvm::MDNode* loopId(llvm::ArrayRef<llvm::Metadata*> ops);
  // lower_parallel.cc
  void lowerParallelFor(const tir::StmtNode& s);
  llvm::Function* outlineParallelBody(const tir::StmtNode& s, const FreeVars& fv,
                                      llvm::StructType* closureType);
  llvm::Function* outlineParallelImpl(const tir::StmtNode& s, const FreeVars& fv,
                                      llvm::StructType* closureType);
  void returnIfFailed(llvm::Value* status);
  void emitReturn(llvm::Value* status);

  ModuleState& ms_;
  llvm::Function* fn_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  llvm::BasicBlock* entry_;  // allocas go to its start, so mem2reg/SROA can promote them
  bool serialOnly_;
  std::unordered_map<std::string, std::vector<llvm::Value*>> vars_;
  std::unordered_map<const tir::BufferNode*, llvm::Value*> buffers_;
  std::vector<llvm::Value*> heapBuffers_;  // live heap allocations, freed on every return
};

}  // namespace kiln::codegen
