// The loop IR: a small imperative IR (buffers, loops, loads, stores, scalar expressions) that every
// fused group lowers to and that codegen/llvm turns into machine code.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime/data_type.h"

namespace kiln::kernel {

using runtime::DataType;

// A flat, compact, row-major array: a kernel parameter or a local (stack) buffer.
struct BufferNode {
  std::string name;
  DataType dtype;
  std::vector<int64_t> shape;
  int64_t numel() const;
};
using Buffer = std::shared_ptr<const BufferNode>;
Buffer makeBuffer(std::string name, DataType dtype, std::vector<int64_t> shape);

enum class ExprKind {
  kIntImm, kFloatImm, kVar, kBinary, kCompare, kSelect, kLoad, kCast, kCall,
};
enum class BinaryOp { kAdd, kSub, kMul, kDiv, kMod, kFloorDiv, kFloorMod, kMin, kMax, kAnd, kOr };
enum class CompareOp { kLT, kLE, kGT, kGE, kEQ, kNE };
// Math intrinsics available to kernels (mapped to LLVM intrinsics or libm).
enum class Intrinsic { kExp, kLog, kSqrt, kTanh, kAbs, kFloor, kCeil, kRound, kErf, kSigmoid, kPow };

struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

struct ExprNode {
  ExprKind kind;
  DataType dtype;  // int64 for index arithmetic, bool for comparisons

  // kIntImm / kFloatImm
  int64_t intValue = 0;
  double floatValue = 0;
  // kVar
  std::string name;
  // kBinary / kCompare: a, b. kSelect: a = condition, b = true value, c = false value.
  // kCast: a. kCall: args.
  BinaryOp binaryOp = BinaryOp::kAdd;
  CompareOp compareOp = CompareOp::kLT;
  Intrinsic intrinsic = Intrinsic::kExp;
  Expr a, b, c;
  std::vector<Expr> args;
  // kLoad: buffer[index] with index a flat element index (int64)
  Buffer buffer;
  Expr index;
};

// Constructors (they fold constant integer arithmetic, so index expressions stay small).
Expr intImm(int64_t v, DataType t = DataType::int64());
Expr floatImm(double v, DataType t = DataType::float32());
Expr var(const std::string& name, DataType t = DataType::int64());
Expr binary(BinaryOp op, Expr a, Expr b);
Expr compare(CompareOp op, Expr a, Expr b);
Expr select(Expr cond, Expr t, Expr f);
Expr load(Buffer buffer, Expr index);
Expr cast(DataType t, Expr a);
Expr call(Intrinsic f, std::vector<Expr> args);
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);  // integer: truncating; float: IEEE
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);

enum class StmtKind { kFor, kStore, kSeq, kLet, kIf, kAllocate };
// kParallel loops run on the runtime's pool (outlined by codegen); kVectorized asks codegen to
// vectorize the loop; kUnrolled asks it to unroll fully.
enum class ForKind { kSerial, kParallel, kVectorized, kUnrolled };

struct StmtNode;
using Stmt = std::shared_ptr<const StmtNode>;

struct StmtNode {
  StmtKind kind;
  // kFor: for (loopVar = min; loopVar < min + extent; ++loopVar) body
  Expr loopVar, min, extent;
  ForKind forKind = ForKind::kSerial;
  // kStore: buffer[index] = value
  Buffer buffer;
  Expr index, value;
  // kLet: letVar = value; body (letVar is immutable). kIf: if (value) body else elseBody.
  Expr letVar;
  Stmt body, elseBody;
  // kSeq
  std::vector<Stmt> seq;
  // kAllocate: a local buffer (buffer) live in body
};

Stmt forLoop(Expr loopVar, Expr min, Expr extent, ForKind kind, Stmt body);
Stmt store(Buffer buffer, Expr index, Expr value);
Stmt seq(std::vector<Stmt> stmts);
Stmt let(Expr letVar, Expr value, Stmt body);
Stmt ifThenElse(Expr cond, Stmt thenBody, Stmt elseBody = nullptr);
Stmt allocate(Buffer buffer, Stmt body);

// One kernel: a C-ABI function `int32_t name(void* const* args)` whose args are the data pointers
// of params, in order.
struct PrimFunc {
  std::string name;
  std::vector<Buffer> params;
  Stmt body;
};

// Readable text of a kernel, for --dump-ir and tests.
std::string printPrimFunc(const PrimFunc& f);

}  // namespace kiln::kernel
