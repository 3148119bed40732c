// Walking and rewriting the loop IR: a visitor and a mutator with one overridable method per node
// kind, so a pass handles only the kinds it cares about and recursion is written once.
#pragma once

#include "kiln/tir/stmt.h"

namespace kiln::tir {

// Visits every expression and statement below the one it is given, children before nothing:
// an override that still wants the children calls the base method.
class Visitor {
 public:
  virtual ~Visitor() = default;
  void visitExpr(const Expr& e);  // dispatches on kind; null is ignored
  void visitStmt(const Stmt& s);

 protected:
  virtual void visitLeaf(const ExprNode& e);  // IntImm, FloatImm
  virtual void visitVar(const ExprNode& e);
  virtual void visitBinary(const ExprNode& e);
  virtual void visitCompare(const ExprNode& e);
  virtual void visitSelect(const ExprNode& e);
  virtual void visitLoad(const ExprNode& e);
  virtual void visitCast(const ExprNode& e);
  virtual void visitCall(const ExprNode& e);
  virtual void visitRamp(const ExprNode& e);
  virtual void visitBroadcast(const ExprNode& e);

  virtual void visitFor(const StmtNode& s);
  virtual void visitStore(const StmtNode& s);
  virtual void visitSeq(const StmtNode& s);
  virtual void visitLet(const StmtNode& s);
  virtual void visitIf(const StmtNode& s);
  virtual void visitAllocate(const StmtNode& s);
  virtual void visitAssert(const StmtNode& s);
};

// Rebuilds the IR bottom-up through the checking, folding constructors; a node whose children did
// not change is returned as it is, so an identity mutation shares the whole tree.
class Mutator {
 public:
  virtual ~Mutator() = default;
  Expr mutateExpr(const Expr& e);  // null stays null
  Stmt mutateStmt(const Stmt& s);

 protected:
  virtual Expr mutateLeaf(const Expr& e);
  virtual Expr mutateVar(const Expr& e);
  virtual Expr mutateBinary(const Expr& e);
  virtual Expr mutateCompare(const Expr& e);
  virtual Expr mutateSelect(const Expr& e);
  virtual Expr mutateLoad(const Expr& e);
  virtual Expr mutateCast(const Expr& e);
  virtual Expr mutateCall(const Expr& e);
  virtual Expr mutateRamp(const Expr& e);
  virtual Expr mutateBroadcast(const Expr& e);

  virtual Stmt mutateFor(const Stmt& s);
  virtual Stmt mutateStore(const Stmt& s);
  virtual Stmt mutateSeq(const Stmt& s);
  virtual Stmt mutateLet(const Stmt& s);
  virtual Stmt mutateIf(const Stmt& s);
  virtual Stmt mutateAllocate(const Stmt& s);
  virtual Stmt mutateAssert(const Stmt& s);
};

}  // namespace kiln::tir
