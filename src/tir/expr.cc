// Constructors of the loop IR's expressions; they check dtypes, broadcast a scalar operand to its
// vector partner and fold constant integer arithmetic (ramps included), so that the index
// expressions built by lowering stay small and codegen sees simple affine forms.
#include "kiln/tir/expr.h"

#include <utility>

#include "kiln/support/error.h"

namespace kiln::tir {
namespace {

bool isIntLike(DataType t) { return t.isInt() || t.isUInt() || t.isBool(); }

DataType scalarOf(DataType t) { return withLanes(t, 1); }

// Wraps V into the value range of T (two's complement), as the machine would.
int64_t wrapTo(DataType t, int64_t v) {
  if (t.isBool()) return v != 0 ? 1 : 0;
  if (t.bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << t.bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.isUInt()) return static_cast<int64_t>(u);
  uint64_t sign = uint64_t{1} << (t.bits - 1);
  return static_cast<int64_t>((u ^ sign) - sign);
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

std::shared_ptr<ExprNode> newExpr(ExprKind kind, DataType t) {
  auto e = std::make_shared<ExprNode>();
  e->kind = kind;
  e->dtype = t;
  return e;
}

// The integer immediate E holds, directly or broadcast to every lane; null when it holds none.
const ExprNode* intImmOf(const Expr& e) {
  if (e->kind == ExprKind::kIntImm) return e.get();
  if (e->kind == ExprKind::kBroadcast && e->a->kind == ExprKind::kIntImm) return e->a.get();
  return nullptr;
}

bool holdsInt(const Expr& e, int64_t v) {
  const ExprNode* imm = intImmOf(e);
  return imm != nullptr && imm->intValue == v;
}

// Folds OP on two integer immediates; false when folding would hide a division by zero.
bool foldInts(BinaryOp op, int64_t a, int64_t b, int64_t* out) {
  auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case BinaryOp::kAdd:
      *out = static_cast<int64_t>(ua + ub);
      return true;
    case BinaryOp::kSub:
      *out = static_cast<int64_t>(ua - ub);
      return true;
    case BinaryOp::kMul:
      *out = static_cast<int64_t>(ua * ub);
      return true;
    case BinaryOp::kMin:
      *out = a < b ? a : b;
      return true;
    case BinaryOp::kMax:
      *out = a > b ? a : b;
      return true;
    case BinaryOp::kAnd:
      *out = (a != 0 && b != 0) ? 1 : 0;
      return true;
    case BinaryOp::kOr:
      *out = (a != 0 || b != 0) ? 1 : 0;
      return true;
    default:
      break;
  }
  if (b == 0 || (a == INT64_MIN && b == -1)) return false;
  switch (op) {
    case BinaryOp::kDiv:
      *out = a / b;
      return true;
    case BinaryOp::kMod:
      *out = a % b;
      return true;
    case BinaryOp::kFloorDiv:
      *out = floorDiv(a, b);
      return true;
    case BinaryOp::kFloorMod:
      *out = floorMod(a, b);
      return true;
    default:
      return false;
  }
}

// Algebraic identities with one immediate operand (x+0, x*1, x*0, x/1, ...); null when none
// applies. Immediates may be broadcast.
Expr foldIdentity(BinaryOp op, const Expr& a, const Expr& b) {
  DataType t = a->dtype;
  switch (op) {
    case BinaryOp::kAdd:
      if (holdsInt(b, 0)) return a;
      if (holdsInt(a, 0)) return b;
      break;
    case BinaryOp::kSub:
      if (holdsInt(b, 0)) return a;
      if (a == b) return constant(0, t);
      break;
    case BinaryOp::kMul:
      if (holdsInt(b, 1)) return a;
      if (holdsInt(a, 1)) return b;
      if (holdsInt(a, 0) || holdsInt(b, 0)) return constant(0, t);
      break;
    case BinaryOp::kDiv:
    case BinaryOp::kFloorDiv:
      if (holdsInt(b, 1)) return a;
      if (holdsInt(a, 0) && intImmOf(b) != nullptr && intImmOf(b)->intValue != 0) return a;
      break;
    case BinaryOp::kMod:
    case BinaryOp::kFloorMod:
      if (holdsInt(b, 1) || holdsInt(b, -1)) return constant(0, t);
      break;
    case BinaryOp::kMin:
    case BinaryOp::kMax:
      if (a == b) return a;
      break;
    case BinaryOp::kAnd:
      if (const ExprNode* imm = intImmOf(a)) return imm->intValue != 0 ? b : a;
      if (const ExprNode* imm = intImmOf(b)) return imm->intValue != 0 ? a : b;
      break;
    case BinaryOp::kOr:
      if (const ExprNode* imm = intImmOf(a)) return imm->intValue != 0 ? a : b;
      if (const ExprNode* imm = intImmOf(b)) return imm->intValue != 0 ? b : a;
      break;
    case BinaryOp::kShl:
    case BinaryOp::kShr:
      if (holdsInt(b, 0)) return a;
      break;
  }
  return nullptr;
}

// (x + c1) + c2 -> x + (c1 + c2): keeps the offsets that loops and pads add to indices in one
// immediate.
Expr foldNestedAdd(BinaryOp op, const Expr& a, const Expr& b) {
  if (!isIntImm(b) || a->kind != ExprKind::kBinary || !isIntImm(a->b)) return nullptr;
  bool outerAdd = op == BinaryOp::kAdd, outerSub = op == BinaryOp::kSub;
  bool innerAdd = a->binaryOp == BinaryOp::kAdd, innerSub = a->binaryOp == BinaryOp::kSub;
  if (!(outerAdd || outerSub) || !(innerAdd || innerSub)) return nullptr;
  // Signed c1 + c2 in unsigned arithmetic, which wraps where signed overflow would be undefined;
  // intImm wraps the sum to the type.
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  uint64_t c1 = innerAdd ? u(a->b->intValue) : 0 - u(a->b->intValue);
  uint64_t c2 = outerAdd ? u(b->intValue) : 0 - u(b->intValue);
  return binary(BinaryOp::kAdd, a->a, intImm(static_cast<int64_t>(c1 + c2), a->dtype));
}

// Affine arithmetic on ramps stays a ramp: ramp +- ramp, ramp +- broadcast, ramp * broadcast;
// operations on two broadcasts happen once, on the scalars. Null when no rule applies.
Expr foldVector(BinaryOp op, const Expr& a, const Expr& b) {
  int lanes = a->dtype.lanes;
  bool aRamp = a->kind == ExprKind::kRamp, bRamp = b->kind == ExprKind::kRamp;
  bool aBcast = a->kind == ExprKind::kBroadcast, bBcast = b->kind == ExprKind::kBroadcast;
  if (aBcast && bBcast) return broadcast(binary(op, a->a, b->a), lanes);
  bool add = op == BinaryOp::kAdd, sub = op == BinaryOp::kSub, mul = op == BinaryOp::kMul;
  if (aRamp && bRamp && (add || sub)) {
    return ramp(binary(op, a->a, b->a), binary(op, a->b, b->b), lanes);
  }
  if (aRamp && bBcast && (add || sub)) return ramp(binary(op, a->a, b->a), a->b, lanes);
  if (aBcast && bRamp && add) return ramp(a->a + b->a, b->b, lanes);
  if (aRamp && bBcast && mul) return ramp(a->a * b->a, a->b * b->a, lanes);
  if (aBcast && bRamp && mul) return ramp(a->a * b->a, a->a * b->b, lanes);
  return nullptr;
}

// Brings two operands to one vector width: a scalar meets a vector as a broadcast.
void unifyLanes(Expr& a, Expr& b, const char* what) {
  int la = a->dtype.lanes, lb = b->dtype.lanes;
  if (la == lb) return;
  if (la == 1) {
    a = broadcast(a, lb);
  } else if (lb == 1) {
    b = broadcast(b, la);
  } else {
    KILN_CHECK(false, what, " operands have different vector widths: ", a->dtype.str(), " vs ",
               b->dtype.str());
  }
}

}  // namespace

DataType withLanes(DataType t, int lanes) {
  KILN_CHECK(lanes >= 1 && lanes <= 65535, "vector width ", lanes, " out of range");
  t.lanes = static_cast<uint16_t>(lanes);
  return t;
}

bool isIntImm(const Expr& e) { return e->kind == ExprKind::kIntImm; }
bool isIntImm(const Expr& e, int64_t v) { return isIntImm(e) && e->intValue == v; }

Expr intImm(int64_t v, DataType t) {
  KILN_CHECK(isIntLike(t) && t.lanes == 1, "intImm of non-integer or vector type ", t.str());
  auto e = newExpr(ExprKind::kIntImm, t);
  e->intValue = wrapTo(t, v);
  return e;
}

Expr floatImm(double v, DataType t) {
  KILN_CHECK(t.isFloat() && t.lanes == 1, "floatImm of non-float or vector type ", t.str());
  auto e = newExpr(ExprKind::kFloatImm, t);
  e->floatValue = t.bits == 32 ? static_cast<double>(static_cast<float>(v)) : v;
  return e;
}

Expr constant(double v, DataType t) {
  DataType s = scalarOf(t);
  Expr imm = s.isFloat() ? floatImm(v, s) : intImm(static_cast<int64_t>(v), s);
  return broadcast(imm, t.lanes);
}

Expr var(const std::string& name, DataType t) {
  KILN_CHECK(!name.empty(), "a variable needs a name");
  auto e = newExpr(ExprKind::kVar, t);
  e->name = name;
  return e;
}

Expr binary(BinaryOp op, Expr a, Expr b) {
  KILN_CHECK(a != nullptr && b != nullptr, "binary operand is null");
  unifyLanes(a, b, "binary");
  KILN_CHECK(a->dtype == b->dtype, "binary operands differ in dtype: ", a->dtype.str(), " vs ",
             b->dtype.str());
  DataType t = a->dtype;
  if (op == BinaryOp::kAnd || op == BinaryOp::kOr) {
    KILN_CHECK(t.isBool(), "logical operator on non-bool type ", t.str());
  }
  if (op == BinaryOp::kFloorDiv || op == BinaryOp::kFloorMod) {
    KILN_CHECK(isIntLike(t), "floor division on non-integer type ", t.str());
  }
  if (op == BinaryOp::kShl || op == BinaryOp::kShr) {
    KILN_CHECK(t.isUInt(), "bit shift on a type that is not unsigned: ", t.str());
  }
  if (t.lanes > 1) {
    if (Expr e = foldVector(op, a, b)) return e;
  }
  if (isIntLike(t)) {
    int64_t v = 0;
    if (isIntImm(a) && isIntImm(b) && foldInts(op, a->intValue, b->intValue, &v)) {
      return intImm(v, t);
    }
    if (Expr e = foldIdentity(op, a, b)) return e;
    if (Expr e = foldNestedAdd(op, a, b)) return e;
  }
  if (t.isFloat() && a->kind == ExprKind::kFloatImm && b->kind == ExprKind::kFloatImm) {
    double x = a->floatValue, y = b->floatValue;
    switch (op) {
      case BinaryOp::kAdd:
        return floatImm(x + y, t);
      case BinaryOp::kSub:
        return floatImm(x - y, t);
      case BinaryOp::kMul:
        return floatImm(x * y, t);
      case BinaryOp::kDiv:
        return floatImm(x / y, t);
      default:
        break;
    }
  }
  auto e = newExpr(ExprKind::kBinary, t);
  e->binaryOp = op;
  e->a = std::move(a);
  e->b = std::move(b);
  return e;
}

Expr compare(CompareOp op, Expr a, Expr b) {
  KILN_CHECK(a != nullptr && b != nullptr, "compare operand is null");
  unifyLanes(a, b, "compare");
  KILN_CHECK(a->dtype == b->dtype, "compare operands differ in dtype: ", a->dtype.str(), " vs ",
             b->dtype.str());
  bool ints = isIntImm(a) && isIntImm(b);
  bool floats = a->kind == ExprKind::kFloatImm && b->kind == ExprKind::kFloatImm;
  if (ints || floats) {
    double x = ints ? 0 : a->floatValue, y = ints ? 0 : b->floatValue;
    int64_t i = a->intValue, j = b->intValue;
    bool r = false;
    switch (op) {
      case CompareOp::kLT:
        r = ints ? i < j : x < y;
        break;
      case CompareOp::kLE:
        r = ints ? i <= j : x <= y;
        break;
      case CompareOp::kGT:
        r = ints ? i > j : x > y;
        break;
      case CompareOp::kGE:
        r = ints ? i >= j : x >= y;
        break;
      case CompareOp::kEQ:
        r = ints ? i == j : x == y;
        break;
      case CompareOp::kNE:
        r = ints ? i != j : x != y;
        break;
    }
    return intImm(r ? 1 : 0, DataType::boolean());
  }
  auto e = newExpr(ExprKind::kCompare, withLanes(DataType::boolean(), a->dtype.lanes));
  e->compareOp = op;
  e->a = std::move(a);
  e->b = std::move(b);
  return e;
}

Expr select(Expr cond, Expr t, Expr f) {
  KILN_CHECK(cond != nullptr && t != nullptr && f != nullptr, "select operand is null");
  KILN_CHECK(cond->dtype.isBool(), "select condition must be bool, got ", cond->dtype.str());
  unifyLanes(t, f, "select");
  KILN_CHECK(t->dtype == f->dtype, "select branches differ in dtype: ", t->dtype.str(), " vs ",
             f->dtype.str());
  if (isIntImm(cond)) return cond->intValue != 0 ? t : f;
  if (t == f) return t;
  if (cond->dtype.lanes != t->dtype.lanes) {
    KILN_CHECK(cond->dtype.lanes == 1 || t->dtype.lanes == 1, "select condition ",
               cond->dtype.str(), " does not match its values ", t->dtype.str());
    if (t->dtype.lanes == 1) {
      t = broadcast(t, cond->dtype.lanes);
      f = broadcast(f, cond->dtype.lanes);
    }
  }
  auto e = newExpr(ExprKind::kSelect, t->dtype);
  e->a = std::move(cond);
  e->b = std::move(t);
  e->c = std::move(f);
  return e;
}

Expr load(Buffer buffer, Expr index) {
  KILN_CHECK(buffer != nullptr && index != nullptr, "load of a null buffer or index");
  KILN_CHECK(scalarOf(index->dtype) == DataType::int64(), "load index of ", buffer->name,
             " must be int64, got ", index->dtype.str());
  auto e = newExpr(ExprKind::kLoad, withLanes(buffer->dtype, index->dtype.lanes));
  e->buffer = std::move(buffer);
  e->index = std::move(index);
  return e;
}

Expr cast(DataType t, Expr a) {
  KILN_CHECK(a, "cast of a null expression");
  // A scalar target type casts each lane; a scalar cast to a vector type is broadcast.
  if (t.lanes == 1) t = withLanes(t, a->dtype.lanes);
  if (a->dtype.lanes == 1 && t.lanes > 1) return broadcast(cast(scalarOf(t), a), t.lanes);
  KILN_CHECK(t.lanes == a->dtype.lanes, "cast of ", a->dtype.str(), " to ", t.str(),
             " changes the vector width");
  if (a->dtype == t) return a;
  if (a->kind == ExprKind::kBroadcast) return broadcast(cast(scalarOf(t), a->a), t.lanes);
  if (isIntImm(a) && isIntLike(t)) return intImm(a->intValue, t);
  if (isIntImm(a) && t.isFloat()) return floatImm(static_cast<double>(a->intValue), t);
  if (a->kind == ExprKind::kFloatImm && t.isFloat()) return floatImm(a->floatValue, t);
  auto e = newExpr(ExprKind::kCast, t);
  e->a = std::move(a);
  return e;
}

Expr call(Intrinsic f, std::vector<Expr> args) {
  size_t arity = static_cast<size_t>(intrinsicArity(f));
  KILN_CHECK(args.size() == arity, intrinsicName(f), " expects ", arity, " arguments, got ",
             args.size());
  for (const Expr& x : args) KILN_CHECK(x != nullptr, intrinsicName(f), " of a null argument");
  int lanes = 1;
  for (const Expr& x : args) lanes = std::max<int>(lanes, x->dtype.lanes);
  for (Expr& x : args) {
    if (x->dtype.lanes == 1 && lanes > 1) x = broadcast(x, lanes);
    KILN_CHECK(x->dtype == args[0]->dtype, intrinsicName(f),
               " arguments differ in dtype: ", x->dtype.str(), " vs ", args[0]->dtype.str());
  }
  DataType t = args[0]->dtype;
  bool reduce =
      f == Intrinsic::kReduceAdd || f == Intrinsic::kReduceMax || f == Intrinsic::kReduceMin;
  bool intOk = f == Intrinsic::kAbs || reduce;
  KILN_CHECK(t.isFloat() || (intOk && isIntLike(t)), intrinsicName(f), " on unsupported type ",
             t.str());
  if (reduce) {
    if (t.lanes == 1) return args[0];
    t = scalarOf(t);
  }
  auto e = newExpr(ExprKind::kCall, t);
  e->intrinsic = f;
  e->args = std::move(args);
  return e;
}

Expr ramp(Expr base, Expr stride, int lanes) {
  KILN_CHECK(base != nullptr && stride != nullptr, "ramp of a null base or stride");
  KILN_CHECK(base->dtype == DataType::int64() && stride->dtype == DataType::int64(),
             "ramp base and stride must be int64 scalars, got ", base->dtype.str(), " and ",
             stride->dtype.str());
  if (lanes == 1) return base;
  if (isIntImm(stride, 0)) return broadcast(base, lanes);
  auto e = newExpr(ExprKind::kRamp, withLanes(DataType::int64(), lanes));
  e->a = std::move(base);
  e->b = std::move(stride);
  return e;
}

Expr broadcast(Expr scalar, int lanes) {
  KILN_CHECK(scalar != nullptr, "broadcast of a null expression");
  KILN_CHECK(scalar->dtype.lanes == 1, "broadcast of vector ", scalar->dtype.str());
  if (lanes == 1) return scalar;
  auto e = newExpr(ExprKind::kBroadcast, withLanes(scalar->dtype, lanes));
  e->a = std::move(scalar);
  return e;
}

Expr fma(Expr a, Expr b, Expr c) {
  return call(Intrinsic::kFma, {std::move(a), std::move(b), std::move(c)});
}

Expr operator+(Expr a, Expr b) { return binary(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return binary(BinaryOp::kSub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return binary(BinaryOp::kMul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return binary(BinaryOp::kDiv, std::move(a), std::move(b)); }
Expr min(Expr a, Expr b) { return binary(BinaryOp::kMin, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return binary(BinaryOp::kMax, std::move(a), std::move(b)); }
Expr operator&&(Expr a, Expr b) { return binary(BinaryOp::kAnd, std::move(a), std::move(b)); }
Expr operator||(Expr a, Expr b) { return binary(BinaryOp::kOr, std::move(a), std::move(b)); }

}  // namespace kiln::tir
