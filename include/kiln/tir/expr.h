// Expressions of the loop IR: immutable, shared nodes of scalar or fixed-width vector type. The
// constructors check types, broadcast a scalar operand to its vector partner, and fold constant
// and affine arithmetic (ramps included) so index expressions stay small.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/tir/buffer.h"

namespace kiln::tir {

enum class ExprKind {
  kIntImm,
  kFloatImm,
  kVar,
  kBinary,
  kCompare,
  kSelect,
  kLoad,
  kCast,
  kCall,
  kRamp,
  kBroadcast,
};
// kShl/kShr: bit shifts of unsigned integers; a shift by the width or more gives 0.
enum class BinaryOp {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kFloorDiv,
  kFloorMod,
  kMin,
  kMax,
  kAnd,
  kOr,
  kShl,
  kShr
};
enum class CompareOp { kLT, kLE, kGT, kGE, kEQ, kNE };
// Math and vector intrinsics. kFma(a, b, c) = a * b + c with one rounding; kReduce* fold the
// lanes of a vector into a scalar.
enum class Intrinsic {
  kExp,
  kLog,
  kSqrt,
  kTanh,
  kAbs,
  kFloor,
  kCeil,
  kRound,
  kErf,
  kSigmoid,
  // Trigonometric and hyperbolic functions and their inverses (libm).
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kAsinh,
  kAcosh,
  kAtanh,
  kPow,
  kFma,
  kReduceAdd,
  kReduceMax,
  kReduceMin,
};

struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

struct ExprNode {
  ExprKind kind;
  DataType dtype;  // lanes > 1 for vectors; int64 for indices; bool for comparisons

  // kIntImm / kFloatImm (always scalars: a vector constant is a broadcast)
  int64_t intValue = 0;
  double floatValue = 0;
  // kVar
  std::string name;
  // kBinary / kCompare: a, b. kSelect: a = condition, b = true value, c = false value.
  // kCast: a. kCall: args. kRamp: a = base, b = stride (int64 scalars), lanes in dtype.
  // kBroadcast: a = the scalar, lanes in dtype.
  BinaryOp binaryOp = BinaryOp::kAdd;
  CompareOp compareOp = CompareOp::kLT;
  Intrinsic intrinsic = Intrinsic::kExp;
  Expr a, b, c;
  std::vector<Expr> args;
  // kLoad: buffer[index], index an int64 flat element index; a vector index (int64xN) loads N
  // elements (consecutive when it is a ramp of stride 1).
  Buffer buffer;
  Expr index;
};

// The element type of T with LANES lanes.
DataType withLanes(DataType t, int lanes);

Expr intImm(int64_t v, DataType t = DataType::int64());
Expr floatImm(double v, DataType t = DataType::float32());
// An immediate of type T (int or float) holding V; a vector T gives a broadcast.
Expr constant(double v, DataType t);
Expr var(const std::string& name, DataType t = DataType::int64());
Expr binary(BinaryOp op, Expr a, Expr b);
Expr compare(CompareOp op, Expr a, Expr b);
Expr select(Expr cond, Expr t, Expr f);
Expr load(Buffer buffer, Expr index);
Expr cast(DataType t, Expr a);
Expr call(Intrinsic f, std::vector<Expr> args);
// base, base + stride, ... (LANES int64 lanes).
Expr ramp(Expr base, Expr stride, int lanes);
Expr broadcast(Expr scalar, int lanes);
Expr fma(Expr a, Expr b, Expr c);

Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);  // integer: truncating; float: IEEE
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);

bool isIntImm(const Expr& e);
bool isIntImm(const Expr& e, int64_t v);

// Readable names, shared by the printer and the parser.
const char* binaryOpName(BinaryOp op);  // "+", "floordiv", ...
const char* compareOpName(CompareOp op);
const char* intrinsicName(Intrinsic f);
int intrinsicArity(Intrinsic f);

}  // namespace kiln::tir
