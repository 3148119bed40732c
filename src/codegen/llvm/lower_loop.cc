// Serial, vectorized and unrolled loops: one counted loop whose latch carries the metadata that
// asks LLVM's loop passes to vectorize (at the target's width) or fully unroll it, and keeps them
// from vectorizing a serial loop around one kiln already vectorized.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Metadata.h>

#include "function_lowering.h"
#include "kiln/support/error.h"
#include "kiln/tir/functor.h"

namespace kiln::codegen {

using tir::ForKind;

namespace {

// Whether BODY holds a loop kiln vectorizes. LLVM's loop vectorizer would otherwise widen the
// serial loop around it as well (outer-loop vectorization), turning the inner loop's contiguous
// vector loads into gathers across the outer iterations.
class VectorizedLoopFinder : public tir::Visitor {
 public:
  bool found = false;
  void visitFor(const tir::StmtNode& s) override {
    if (s.forKind == ForKind::kVectorized) found = true;
    if (!found) tir::Visitor::visitFor(s);
  }
};

bool holdsVectorizedLoop(const tir::Stmt& body) {
  VectorizedLoopFinder finder;
  finder.visitStmt(body);
  return finder.found;
}

}  // namespace

void FunctionLowering::lowerFor(const tir::StmtNode& s) {
  KILN_CHECK(s.loopVar != nullptr && s.loopVar->kind == tir::ExprKind::kVar,
             "loop without a loop variable");
  if (s.forKind == ForKind::kParallel && !serialOnly_) return lowerParallelFor(s);
  DataType t = s.loopVar->dtype;
  KILN_CHECK(t.isInt() || t.isUInt(), "loop variable ", s.loopVar->name, " has type ", t.str());
  llvm::Value* begin = lowerExpr(s.min);
  llvm::Value* end = b_.CreateAdd(begin, lowerExpr(s.extent), "", false, t.isInt());
  llvm::MDNode* metadata = s.forKind == ForKind::kSerial && holdsVectorizedLoop(s.body)
                               ? noVectorizeMetadata()
                               : loopMetadata(s.forKind);
  emitLoop(begin, end, t.isInt(), metadata, [&](llvm::Value* i) {
    bindVar(s.loopVar->name, i);
    lowerStmt(s.body);
    unbindVar(s.loopVar->name);
  });
}

void FunctionLowering::emitLoop(llvm::Value* begin, llvm::Value* end, bool isSigned,
                                llvm::MDNode* metadata,
                                const std::function<void(llvm::Value*)>& body) {
  llvm::BasicBlock* preheader = b_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx_, "for.header", fn_);
  auto* bodyBlock = llvm::BasicBlock::Create(ctx_, "for.body", fn_);
  auto* exit = llvm::BasicBlock::Create(ctx_, "for.exit", fn_);
  b_.CreateBr(header);

  b_.SetInsertPoint(header);
  llvm::PHINode* i = b_.CreatePHI(begin->getType(), 2, "i");
  i->addIncoming(begin, preheader);
  llvm::Value* more = isSigned ? b_.CreateICmpSLT(i, end) : b_.CreateICmpULT(i, end);
  b_.CreateCondBr(more, bodyBlock, exit);

  b_.SetInsertPoint(bodyBlock);
  body(i);
  llvm::Value* next =
      b_.CreateAdd(i, llvm::ConstantInt::get(i->getType(), 1), "i.next", !isSigned, isSigned);
  llvm::BranchInst* backedge = b_.CreateBr(header);
  if (metadata != nullptr) backedge->setMetadata(llvm::LLVMContext::MD_loop, metadata);
  i->addIncoming(next, b_.GetInsertBlock());

  b_.SetInsertPoint(exit);
}

llvm::MDNode* FunctionLowering::loopMetadata(ForKind kind) {
  auto hint = [&](const char* name, llvm::Constant* value) -> llvm::Metadata* {
    return llvm::MDNode::get(
        ctx_, {llvm::MDString::get(ctx_, name), llvm::ConstantAsMetadata::get(value)});
  };
  llvm::SmallVector<llvm::Metadata*, 4> ops{nullptr};
  if (kind == ForKind::kVectorized) {
    ops.push_back(hint("llvm.loop.vectorize.enable", b_.getTrue()));
    if (ms_.vectorLanes > 1) {
      ops.push_back(hint("llvm.loop.vectorize.width", b_.getInt32(ms_.vectorLanes)));
    }
  } else if (kind == ForKind::kUnrolled) {
    ops.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.full")}));
  } else {
    return nullptr;
  }
  return loopId(ops);
}

llvm::MDNode* FunctionLowering::noVectorizeMetadata() {
  llvm::Metadata* off =
      llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.enable"),
                               llvm::ConstantAsMetadata::get(b_.getFalse())});
  return loopId({nullptr, off});
}

// A distinct, self-referencing loop ID, as LLVM's loop metadata requires.
llvm::MDNode* FunctionLowering::loopId(llvm::ArrayRef<llvm::Metadata*> ops) {
  llvm::MDNode* id = llvm::MDNode::getDistinct(ctx_, ops);
  id->replaceOperandWith(0, id);
  return id;
}

}  // namespace kiln::codegen
