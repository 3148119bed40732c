// Constructors of the loop IR's statements; they check what the node needs to be well formed on
// its own (scoping is the verifier's job).
#include "kiln/tir/stmt.h"

#include <utility>

#include "kiln/support/error.h"

namespace kiln::tir {
namespace {

std::shared_ptr<StmtNode> newStmt(StmtKind kind) {
  auto s = std::make_shared<StmtNode>();
  s->kind = kind;
  return s;
}

}  // namespace

Stmt forLoop(Expr loopVar, Expr min, Expr extent, ForKind kind, Stmt body) {
  KILN_CHECK(loopVar != nullptr && loopVar->kind == ExprKind::kVar,
             "a loop variable must be a var");
  KILN_CHECK(min != nullptr && extent != nullptr && body != nullptr, "loop over ", loopVar->name,
             " lacks min, extent or body");
  KILN_CHECK(loopVar->dtype == DataType::int64() && min->dtype == DataType::int64() &&
                 extent->dtype == DataType::int64(),
             "loop ", loopVar->name, " must be int64");
  auto s = newStmt(StmtKind::kFor);
  s->loopVar = std::move(loopVar);
  s->min = std::move(min);
  s->extent = std::move(extent);
  s->forKind = kind;
  s->body = std::move(body);
  return s;
}

Stmt store(Buffer buffer, Expr index, Expr value) {
  KILN_CHECK(buffer != nullptr && index != nullptr && value != nullptr,
             "store lacks buffer, index or value");
  KILN_CHECK(withLanes(index->dtype, 1) == DataType::int64(), "store index of ", buffer->name,
             " must be int64, got ", index->dtype.str());
  int lanes = index->dtype.lanes;
  if (value->dtype.lanes == 1 && lanes > 1) value = broadcast(value, lanes);
  KILN_CHECK(value->dtype == withLanes(buffer->dtype, lanes), "store of ", value->dtype.str(),
             " into ", buffer->name, " of ", buffer->dtype.str(), " at an index of ", lanes,
             " lane(s)");
  auto s = newStmt(StmtKind::kStore);
  s->buffer = std::move(buffer);
  s->index = std::move(index);
  s->value = std::move(value);
  return s;
}

Stmt seq(std::vector<Stmt> stmts) {
  auto s = newStmt(StmtKind::kSeq);
  for (Stmt& st : stmts) {
    if (!st) continue;
    if (st->kind == StmtKind::kSeq) {
      s->seq.insert(s->seq.end(), st->seq.begin(), st->seq.end());
    } else {
      s->seq.push_back(std::move(st));
    }
  }
  if (s->seq.size() == 1) return s->seq[0];
  return s;
}

Stmt let(Expr letVar, Expr value, Stmt body) {
  KILN_CHECK(letVar != nullptr && letVar->kind == ExprKind::kVar, "a let binds a var");
  KILN_CHECK(value != nullptr && body != nullptr, "let ", letVar->name, " lacks value or body");
  KILN_CHECK(letVar->dtype == value->dtype, "let ", letVar->name, " of ", letVar->dtype.str(),
             " bound to ", value->dtype.str());
  auto s = newStmt(StmtKind::kLet);
  s->letVar = std::move(letVar);
  s->value = std::move(value);
  s->body = std::move(body);
  return s;
}

Stmt assertThat(Expr cond, int32_t status) {
  KILN_CHECK(cond != nullptr, "assert lacks a condition");
  KILN_CHECK(cond->dtype == DataType::boolean(), "assert condition must be a bool scalar, got ",
             cond->dtype.str());
  KILN_CHECK(status != 0, "an assert must fail with a non-zero status");
  if (isIntImm(cond) && cond->intValue != 0) return seq({});
  auto s = newStmt(StmtKind::kAssert);
  s->value = std::move(cond);
  s->status = status;
  return s;
}

Stmt ifThenElse(Expr cond, Stmt thenBody, Stmt elseBody) {
  KILN_CHECK(cond != nullptr && thenBody != nullptr, "if lacks condition or body");
  KILN_CHECK(cond->dtype == DataType::boolean(), "if condition must be a bool scalar, got ",
             cond->dtype.str());
  // A constant condition keeps only the branch that runs (the other may be invalid there).
  if (isIntImm(cond)) return cond->intValue != 0 ? thenBody : (elseBody ? elseBody : seq({}));
  auto s = newStmt(StmtKind::kIf);
  s->value = std::move(cond);
  s->body = std::move(thenBody);
  s->elseBody = std::move(elseBody);
  return s;
}

Stmt allocate(Buffer buffer, Stmt body) {
  KILN_CHECK(buffer != nullptr && body != nullptr, "allocate lacks buffer or body");
  auto s = newStmt(StmtKind::kAllocate);
  s->buffer = std::move(buffer);
  s->body = std::move(body);
  return s;
}

}  // namespace kiln::tir
