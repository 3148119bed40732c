// The default walks of the visitor and the mutator: dispatch on the node kind, recurse into every
// child, and (mutator) rebuild a node only when a child changed.
#include "kiln/tir/functor.h"

#include "kiln/support/error.h"

namespace kiln::tir {

void Visitor::visitExpr(const Expr& e) {
  if (e == nullptr) return;
  switch (e->kind) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
      return visitLeaf(*e);
    case ExprKind::kVar:
      return visitVar(*e);
    case ExprKind::kBinary:
      return visitBinary(*e);
    case ExprKind::kCompare:
      return visitCompare(*e);
    case ExprKind::kSelect:
      return visitSelect(*e);
    case ExprKind::kLoad:
      return visitLoad(*e);
    case ExprKind::kCast:
      return visitCast(*e);
    case ExprKind::kCall:
      return visitCall(*e);
    case ExprKind::kRamp:
      return visitRamp(*e);
    case ExprKind::kBroadcast:
      return visitBroadcast(*e);
  }
  KILN_CHECK(false, "unknown expression kind ", static_cast<int>(e->kind));
}

void Visitor::visitStmt(const Stmt& s) {
  if (s == nullptr) return;
  switch (s->kind) {
    case StmtKind::kFor:
      return visitFor(*s);
    case StmtKind::kStore:
      return visitStore(*s);
    case StmtKind::kSeq:
      return visitSeq(*s);
    case StmtKind::kLet:
      return visitLet(*s);
    case StmtKind::kIf:
      return visitIf(*s);
    case StmtKind::kAllocate:
      return visitAllocate(*s);
    case StmtKind::kAssert:
      return visitAssert(*s);
  }
  KILN_CHECK(false, "unknown statement kind ", static_cast<int>(s->kind));
}

void Visitor::visitLeaf(const ExprNode&) {}
void Visitor::visitVar(const ExprNode&) {}
void Visitor::visitBinary(const ExprNode& e) {
  visitExpr(e.a);
  visitExpr(e.b);
}
void Visitor::visitCompare(const ExprNode& e) {
  visitExpr(e.a);
  visitExpr(e.b);
}
void Visitor::visitSelect(const ExprNode& e) {
  visitExpr(e.a);
  visitExpr(e.b);
  visitExpr(e.c);
}
void Visitor::visitLoad(const ExprNode& e) { visitExpr(e.index); }
void Visitor::visitCast(const ExprNode& e) { visitExpr(e.a); }
void Visitor::visitCall(const ExprNode& e) {
  for (const Expr& x : e.args) visitExpr(x);
}
void Visitor::visitRamp(const ExprNode& e) {
  visitExpr(e.a);
  visitExpr(e.b);
}
void Visitor::visitBroadcast(const ExprNode& e) { visitExpr(e.a); }

void Visitor::visitFor(const StmtNode& s) {
  visitExpr(s.min);
  visitExpr(s.extent);
  visitStmt(s.body);
}
void Visitor::visitStore(const StmtNode& s) {
  visitExpr(s.index);
  visitExpr(s.value);
}
void Visitor::visitSeq(const StmtNode& s) {
  for (const Stmt& x : s.seq) visitStmt(x);
}
void Visitor::visitLet(const StmtNode& s) {
  visitExpr(s.value);
  visitStmt(s.body);
}
void Visitor::visitIf(const StmtNode& s) {
  visitExpr(s.value);
  visitStmt(s.body);
  visitStmt(s.elseBody);
}
void Visitor::visitAllocate(const StmtNode& s) { visitStmt(s.body); }
void Visitor::visitAssert(const StmtNode& s) { visitExpr(s.value); }

Expr Mutator::mutateExpr(const Expr& e) {
  if (e == nullptr) return e;
  switch (e->kind) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
      return mutateLeaf(e);
    case ExprKind::kVar:
      return mutateVar(e);
    case ExprKind::kBinary:
      return mutateBinary(e);
    case ExprKind::kCompare:
      return mutateCompare(e);
    case ExprKind::kSelect:
      return mutateSelect(e);
    case ExprKind::kLoad:
      return mutateLoad(e);
    case ExprKind::kCast:
      return mutateCast(e);
    case ExprKind::kCall:
      return mutateCall(e);
    case ExprKind::kRamp:
      return mutateRamp(e);
    case ExprKind::kBroadcast:
      return mutateBroadcast(e);
  }
  KILN_CHECK(false, "unknown expression kind ", static_cast<int>(e->kind));
  return e;
}

Stmt Mutator::mutateStmt(const Stmt& s) {
  if (s == nullptr) return s;
  switch (s->kind) {
    case StmtKind::kFor:
      return mutateFor(s);
    case StmtKind::kStore:
      return mutateStore(s);
    case StmtKind::kSeq:
      return mutateSeq(s);
    case StmtKind::kLet:
      return mutateLet(s);
    case StmtKind::kIf:
      return mutateIf(s);
    case StmtKind::kAllocate:
      return mutateAllocate(s);
    case StmtKind::kAssert:
      return mutateAssert(s);
  }
  KILN_CHECK(false, "unknown statement kind ", static_cast<int>(s->kind));
  return s;
}

Expr Mutator::mutateLeaf(const Expr& e) { return e; }
Expr Mutator::mutateVar(const Expr& e) { return e; }

Expr Mutator::mutateBinary(const Expr& e) {
  Expr a = mutateExpr(e->a), b = mutateExpr(e->b);
  return a == e->a && b == e->b ? e : binary(e->binaryOp, a, b);
}

Expr Mutator::mutateCompare(const Expr& e) {
  Expr a = mutateExpr(e->a), b = mutateExpr(e->b);
  return a == e->a && b == e->b ? e : compare(e->compareOp, a, b);
}

Expr Mutator::mutateSelect(const Expr& e) {
  Expr a = mutateExpr(e->a), b = mutateExpr(e->b), c = mutateExpr(e->c);
  return a == e->a && b == e->b && c == e->c ? e : select(a, b, c);
}

Expr Mutator::mutateLoad(const Expr& e) {
  Expr index = mutateExpr(e->index);
  return index == e->index ? e : load(e->buffer, index);
}

Expr Mutator::mutateCast(const Expr& e) {
  Expr a = mutateExpr(e->a);
  return a == e->a ? e : cast(e->dtype, a);
}

Expr Mutator::mutateCall(const Expr& e) {
  std::vector<Expr> args;
  bool changed = false;
  for (const Expr& x : e->args) {
    args.push_back(mutateExpr(x));
    changed = changed || args.back() != x;
  }
  return changed ? call(e->intrinsic, args) : e;
}

Expr Mutator::mutateRamp(const Expr& e) {
  Expr a = mutateExpr(e->a), b = mutateExpr(e->b);
  return a == e->a && b == e->b ? e : ramp(a, b, e->dtype.lanes);
}

Expr Mutator::mutateBroadcast(const Expr& e) {
  Expr a = mutateExpr(e->a);
  return a == e->a ? e : broadcast(a, e->dtype.lanes);
}

Stmt Mutator::mutateFor(const Stmt& s) {
  Expr min = mutateExpr(s->min), extent = mutateExpr(s->extent);
  Stmt body = mutateStmt(s->body);
  if (min == s->min && extent == s->extent && body == s->body) return s;
  return forLoop(s->loopVar, min, extent, s->forKind, body);
}

Stmt Mutator::mutateStore(const Stmt& s) {
  Expr index = mutateExpr(s->index), value = mutateExpr(s->value);
  return index == s->index && value == s->value ? s : store(s->buffer, index, value);
}

Stmt Mutator::mutateSeq(const Stmt& s) {
  std::vector<Stmt> stmts;
  bool changed = false;
  for (const Stmt& x : s->seq) {
    stmts.push_back(mutateStmt(x));
    changed = changed || stmts.back() != x;
  }
  return changed ? seq(stmts) : s;
}

Stmt Mutator::mutateLet(const Stmt& s) {
  Expr value = mutateExpr(s->value);
  Stmt body = mutateStmt(s->body);
  return value == s->value && body == s->body ? s : let(s->letVar, value, body);
}

Stmt Mutator::mutateIf(const Stmt& s) {
  Expr cond = mutateExpr(s->value);
  Stmt then = mutateStmt(s->body), otherwise = mutateStmt(s->elseBody);
  if (cond == s->value && then == s->body && otherwise == s->elseBody) return s;
  return ifThenElse(cond, then, otherwise);
}

Stmt Mutator::mutateAllocate(const Stmt& s) {
  Stmt body = mutateStmt(s->body);
  return body == s->body ? s : allocate(s->buffer, body);
}

Stmt Mutator::mutateAssert(const Stmt& s) {
  Expr cond = mutateExpr(s->value);
  return cond == s->value ? s : assertThat(cond, s->status);
}

}  // namespace kiln::tir
