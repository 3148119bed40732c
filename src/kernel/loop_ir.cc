// Constructors of the loop IR; they check dtypes and fold constant integer arithmetic so that the
// index expressions built by lowering stay small and codegen sees simple affine forms.
#include "kiln/kernel/loop_ir.h"

#include <utility>

#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

bool isIntLike(DataType t) { return (t.isInt() || t.isUInt() || t.isBool()) && t.lanes == 1; }

bool isIntImm(const Expr& e) { return e->kind == ExprKind::kIntImm; }
bool isIntImm(const Expr& e, int64_t v) { return isIntImm(e) && e->intValue == v; }

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
// applies.
Expr foldIdentity(BinaryOp op, const Expr& a, const Expr& b) {
  DataType t = a->dtype;
  switch (op) {
    case BinaryOp::kAdd:
      if (isIntImm(b, 0)) return a;
      if (isIntImm(a, 0)) return b;
      break;
    case BinaryOp::kSub:
      if (isIntImm(b, 0)) return a;
      if (a == b) return intImm(0, t);
      break;
    case BinaryOp::kMul:
      if (isIntImm(b, 1)) return a;
      if (isIntImm(a, 1)) return b;
      if (isIntImm(a, 0) || isIntImm(b, 0)) return intImm(0, t);
      break;
    case BinaryOp::kDiv:
    case BinaryOp::kFloorDiv:
      if (isIntImm(b, 1)) return a;
      if (isIntImm(a, 0) && isIntImm(b) && b->intValue != 0) return a;
      break;
    case BinaryOp::kMod:
    case BinaryOp::kFloorMod:
      if (isIntImm(b, 1) || isIntImm(b, -1)) return intImm(0, t);
      break;
    case BinaryOp::kMin:
    case BinaryOp::kMax:
      if (a == b) return a;
      break;
    case BinaryOp::kAnd:
      if (isIntImm(a)) return a->intValue != 0 ? b : a;
      if (isIntImm(b)) return b->intValue != 0 ? a : b;
      break;
    case BinaryOp::kOr:
      if (isIntImm(a)) return a->intValue != 0 ? a : b;
      if (isIntImm(b)) return b->intValue != 0 ? b : a;
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
  int64_t c1 = innerAdd ? a->b->intValue : -a->b->intValue;
  int64_t c2 = outerAdd ? b->intValue : -b->intValue;
  return binary(BinaryOp::kAdd, a->a, intImm(wrapTo(a->dtype, c1 + c2), a->dtype));
}

}  // namespace

int64_t BufferNode::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Buffer makeBuffer(std::string name, DataType dtype, std::vector<int64_t> shape) {
  for (int64_t d : shape) KILN_CHECK(d >= 0, "buffer ", name, " has a negative dimension");
  auto b = std::make_shared<BufferNode>();
  b->name = std::move(name);
  b->dtype = dtype;
  b->shape = std::move(shape);
  return b;
}

Expr intImm(int64_t v, DataType t) {
  KILN_CHECK(isIntLike(t), "intImm of non-integer type ", t.str());
  auto e = newExpr(ExprKind::kIntImm, t);
  e->intValue = wrapTo(t, v);
  return e;
}

Expr floatImm(double v, DataType t) {
  KILN_CHECK(t.isFloat() && t.lanes == 1, "floatImm of non-float type ", t.str());
  auto e = newExpr(ExprKind::kFloatImm, t);
  e->floatValue = t.bits == 32 ? static_cast<double>(static_cast<float>(v)) : v;
  return e;
}

Expr var(const std::string& name, DataType t) {
  KILN_CHECK(!name.empty(), "a variable needs a name");
  auto e = newExpr(ExprKind::kVar, t);
  e->name = name;
  return e;
}

Expr binary(BinaryOp op, Expr a, Expr b) {
  KILN_CHECK(a != nullptr && b != nullptr, "binary operand is null");
  KILN_CHECK(a->dtype == b->dtype, "binary operands differ in dtype: ", a->dtype.str(), " vs ",
             b->dtype.str());
  DataType t = a->dtype;
  if (op == BinaryOp::kAnd || op == BinaryOp::kOr) {
    KILN_CHECK(t.isBool(), "logical operator on non-bool type ", t.str());
  }
  if (op == BinaryOp::kFloorDiv || op == BinaryOp::kFloorMod) {
    KILN_CHECK(isIntLike(t), "floor division on non-integer type ", t.str());
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
  auto e = newExpr(ExprKind::kCompare, DataType::boolean());
  e->compareOp = op;
  e->a = std::move(a);
  e->b = std::move(b);
  return e;
}

Expr select(Expr cond, Expr t, Expr f) {
  KILN_CHECK(cond != nullptr && t != nullptr && f != nullptr, "select operand is null");
  KILN_CHECK(cond->dtype.isBool(), "select condition must be bool, got ", cond->dtype.str());
  KILN_CHECK(t->dtype == f->dtype, "select branches differ in dtype: ", t->dtype.str(), " vs ",
             f->dtype.str());
  if (isIntImm(cond)) return cond->intValue != 0 ? t : f;
  if (t == f) return t;
  auto e = newExpr(ExprKind::kSelect, t->dtype);
  e->a = std::move(cond);
  e->b = std::move(t);
  e->c = std::move(f);
  return e;
}

Expr load(Buffer buffer, Expr index) {
  KILN_CHECK(buffer != nullptr && index != nullptr, "load of a null buffer or index");
  KILN_CHECK(index->dtype == DataType::int64(), "load index of ", buffer->name,
             " must be int64, got ", index->dtype.str());
  auto e = newExpr(ExprKind::kLoad, buffer->dtype);
  e->buffer = std::move(buffer);
  e->index = std::move(index);
  return e;
}

Expr cast(DataType t, Expr a) {
  KILN_CHECK(a, "cast of a null expression");
  KILN_CHECK(t.lanes == 1, "cast to vector type ", t.str());
  if (a->dtype == t) return a;
  if (isIntImm(a) && isIntLike(t)) return intImm(a->intValue, t);
  if (isIntImm(a) && t.isFloat()) return floatImm(static_cast<double>(a->intValue), t);
  if (a->kind == ExprKind::kFloatImm && t.isFloat()) return floatImm(a->floatValue, t);
  auto e = newExpr(ExprKind::kCast, t);
  e->a = std::move(a);
  return e;
}

Expr call(Intrinsic f, std::vector<Expr> args) {
  size_t arity = f == Intrinsic::kPow ? 2 : 1;
  KILN_CHECK(args.size() == arity, "intrinsic expects ", arity, " arguments, got ", args.size());
  for (const Expr& x : args) {
    KILN_CHECK(x != nullptr && x->dtype == args[0]->dtype, "intrinsic arguments differ in dtype");
  }
  DataType t = args[0]->dtype;
  KILN_CHECK(t.isFloat() || (f == Intrinsic::kAbs && isIntLike(t)),
             "intrinsic on unsupported type ", t.str());
  auto e = newExpr(ExprKind::kCall, t);
  e->intrinsic = f;
  e->args = std::move(args);
  return e;
}

Expr operator+(Expr a, Expr b) { return binary(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return binary(BinaryOp::kSub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return binary(BinaryOp::kMul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return binary(BinaryOp::kDiv, std::move(a), std::move(b)); }
Expr min(Expr a, Expr b) { return binary(BinaryOp::kMin, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return binary(BinaryOp::kMax, std::move(a), std::move(b)); }
Expr operator&&(Expr a, Expr b) { return binary(BinaryOp::kAnd, std::move(a), std::move(b)); }
Expr operator||(Expr a, Expr b) { return binary(BinaryOp::kOr, std::move(a), std::move(b)); }

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
  KILN_CHECK(index->dtype == DataType::int64(), "store index of ", buffer->name,
             " must be int64, got ", index->dtype.str());
  KILN_CHECK(value->dtype == buffer->dtype, "store of ", value->dtype.str(), " into ", buffer->name,
             " of ", buffer->dtype.str());
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

Stmt ifThenElse(Expr cond, Stmt thenBody, Stmt elseBody) {
  KILN_CHECK(cond != nullptr && thenBody != nullptr, "if lacks condition or body");
  KILN_CHECK(cond->dtype.isBool(), "if condition must be bool, got ", cond->dtype.str());
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

}  // namespace kiln::kernel
