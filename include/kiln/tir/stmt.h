// Statements of the loop IR: loops, stores, sequences, immutable bindings, branches and local
// buffers.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/tir/expr.h"

namespace kiln::tir {

enum class StmtKind { kFor, kStore, kSeq, kLet, kIf, kAllocate, kAssert };
// kParallel loops run on the runtime's pool (outlined by codegen); kVectorized asks codegen's
// loop vectoriser to vectorize the loop; kUnrolled asks it to unroll fully.
enum class ForKind { kSerial, kParallel, kVectorized, kUnrolled };

struct StmtNode;
using Stmt = std::shared_ptr<const StmtNode>;

struct StmtNode {
  StmtKind kind;
  // kFor: for (loopVar = min; loopVar < min + extent; ++loopVar) body
  Expr loopVar, min, extent;
  ForKind forKind = ForKind::kSerial;
  // kStore: buffer[index] = value (a vector index stores value's lanes)
  Buffer buffer;
  Expr index, value;
  // kLet: letVar = value; body (letVar is immutable). kIf: if (value) body else elseBody.
  Expr letVar;
  Stmt body, elseBody;
  // kSeq
  std::vector<Stmt> seq;
  // kAllocate: a local buffer (buffer) live in body
  // kAssert: if (!value) the kernel returns `status` (a KILN_STATUS_* code): bad data in an input,
  // such as an index out of range, which the runtime reports naming the kernel.
  int32_t status = 0;
};

Stmt forLoop(Expr loopVar, Expr min, Expr extent, ForKind kind, Stmt body);
Stmt store(Buffer buffer, Expr index, Expr value);
Stmt seq(std::vector<Stmt> stmts);
Stmt let(Expr letVar, Expr value, Stmt body);
// A constant COND gives the branch that runs (or an empty sequence).
Stmt ifThenElse(Expr cond, Stmt thenBody, Stmt elseBody = nullptr);
Stmt allocate(Buffer buffer, Stmt body);
// A check of the data: when COND (a bool scalar) is false the kernel stops and returns STATUS
// (non-zero). A constant true COND gives an empty sequence.
Stmt assertThat(Expr cond, int32_t status);

const char* forKindName(ForKind k);  // "serial", "parallel", "vectorized", "unrolled"

}  // namespace kiln::tir
