// A reference interpreter of the loop IR with bounds checks, for numeric tests of lowering: every
// value is a list of lanes (one for scalars), every lane computed in double and rounded to its
// type.
#include "tir_interpreter.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kiln/support/error.h"
#include "kiln/tir/functor.h"

namespace kiln::tir::testing {
namespace {

using Lanes = std::vector<double>;

double roundTo(DataType t, double v) {
  if (t.isFloat()) return t.bits == 32 ? static_cast<double>(static_cast<float>(v)) : v;
  if (t.isBool()) return v != 0 ? 1 : 0;
  auto i = static_cast<int64_t>(v);
  if (t.bits < 64) {
    uint64_t mask = (uint64_t{1} << t.bits) - 1;
    uint64_t u = static_cast<uint64_t>(i) & mask;
    if (t.isUInt()) return static_cast<double>(u);
    uint64_t sign = uint64_t{1} << (t.bits - 1);
    return static_cast<double>(static_cast<int64_t>((u ^ sign) - sign));
  }
  return static_cast<double>(i);
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

double binaryLane(BinaryOp op, DataType t, double a, double b) {
  if (t.isFloat()) {
    switch (op) {
      case BinaryOp::kAdd:
        return a + b;
      case BinaryOp::kSub:
        return a - b;
      case BinaryOp::kMul:
        return a * b;
      case BinaryOp::kDiv:
        return a / b;
      case BinaryOp::kMin:  // NaN-propagating, as the code generator emits
        return std::isnan(a) || std::isnan(b) ? a + b : std::fmin(a, b);
      case BinaryOp::kMax:
        return std::isnan(a) || std::isnan(b) ? a + b : std::fmax(a, b);
      case BinaryOp::kMod:
        return std::fmod(a, b);
      default:
        throw std::runtime_error("integer-only operator on floats");
    }
  }
  auto x = static_cast<int64_t>(a), y = static_cast<int64_t>(b);
  bool divides = op == BinaryOp::kDiv || op == BinaryOp::kMod || op == BinaryOp::kFloorDiv ||
                 op == BinaryOp::kFloorMod;
  if (divides && y == 0) throw std::runtime_error("integer division by zero");
  switch (op) {
    case BinaryOp::kAdd:
      return static_cast<double>(x + y);
    case BinaryOp::kSub:
      return static_cast<double>(x - y);
    case BinaryOp::kMul:
      return static_cast<double>(x * y);
    case BinaryOp::kDiv: {
      int64_t quotient = x / y;  // truncating, as the loop IR's integer division is
      return static_cast<double>(quotient);
    }
    case BinaryOp::kMod:
      return static_cast<double>(x % y);
    case BinaryOp::kFloorDiv:
      return static_cast<double>(floorDiv(x, y));
    case BinaryOp::kFloorMod:
      return static_cast<double>(x - floorDiv(x, y) * y);
    case BinaryOp::kMin:
      return static_cast<double>(std::min(x, y));
    case BinaryOp::kMax:
      return static_cast<double>(std::max(x, y));
    case BinaryOp::kAnd:
      return (x != 0 && y != 0) ? 1 : 0;
    case BinaryOp::kOr:
      return (x != 0 || y != 0) ? 1 : 0;
    case BinaryOp::kShl:
    case BinaryOp::kShr: {
      auto ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
      if (uy >= 64) return 0;
      return static_cast<double>(op == BinaryOp::kShl ? ux << uy : ux >> uy);
    }
  }
  return 0;
}

double compareLane(CompareOp op, double a, double b) {
  switch (op) {
    case CompareOp::kLT:
      return a < b;
    case CompareOp::kLE:
      return a <= b;
    case CompareOp::kGT:
      return a > b;
    case CompareOp::kGE:
      return a >= b;
    case CompareOp::kEQ:
      return a == b;
    case CompareOp::kNE:
      return a != b;
  }
  return 0;
}

double mathLane(Intrinsic f, double x, double y, double z) {
  switch (f) {
    case Intrinsic::kExp:
      return std::exp(x);
    case Intrinsic::kLog:
      return std::log(x);
    case Intrinsic::kSqrt:
      return std::sqrt(x);
    case Intrinsic::kTanh:
      return std::tanh(x);
    case Intrinsic::kAbs:
      return std::fabs(x);
    case Intrinsic::kFloor:
      return std::floor(x);
    case Intrinsic::kCeil:
      return std::ceil(x);
    case Intrinsic::kRound:
      return std::nearbyint(x);
    case Intrinsic::kErf:
      return std::erf(x);
    case Intrinsic::kSigmoid:
      return 1 / (1 + std::exp(-x));
    case Intrinsic::kSin:
      return std::sin(x);
    case Intrinsic::kCos:
      return std::cos(x);
    case Intrinsic::kTan:
      return std::tan(x);
    case Intrinsic::kAsin:
      return std::asin(x);
    case Intrinsic::kAcos:
      return std::acos(x);
    case Intrinsic::kAtan:
      return std::atan(x);
    case Intrinsic::kSinh:
      return std::sinh(x);
    case Intrinsic::kCosh:
      return std::cosh(x);
    case Intrinsic::kAsinh:
      return std::asinh(x);
    case Intrinsic::kAcosh:
      return std::acosh(x);
    case Intrinsic::kAtanh:
      return std::atanh(x);
    case Intrinsic::kPow:
      return std::pow(x, y);
    case Intrinsic::kFma:
      return std::fma(x, y, z);
    default:
      throw std::runtime_error("not a lane-wise intrinsic");
  }
}

// Lane I of V, a scalar standing for all lanes.
double lane(const Lanes& v, size_t i) { return v.size() == 1 ? v[0] : v[i]; }

// A failed assert: the kernel returns this status, as generated code does.
struct KernelFailed {
  int32_t status;
};

class Interp : public Visitor {
 public:
  void bind(const Buffer& b, Storage* s) { buffers_[b->name] = {b, s, false}; }

  Lanes eval(const Expr& e) {
    visitExpr(e);
    return std::move(result_);
  }

 protected:
  void visitLeaf(const ExprNode& e) override {
    result_ = {e.kind == ExprKind::kIntImm ? static_cast<double>(e.intValue) : e.floatValue};
  }
  void visitVar(const ExprNode& e) override {
    auto it = vars_.find(e.name);
    if (it == vars_.end()) throw std::runtime_error("unbound variable " + e.name);
    result_ = it->second;
  }
  void visitBinary(const ExprNode& e) override {
    Lanes a = eval(e.a), b = eval(e.b);
    result_ = map(e.dtype, [&](size_t i) {
      return roundTo(e.dtype, binaryLane(e.binaryOp, e.dtype, lane(a, i), lane(b, i)));
    });
  }
  void visitCompare(const ExprNode& e) override {
    Lanes a = eval(e.a), b = eval(e.b);
    result_ =
        map(e.dtype, [&](size_t i) { return compareLane(e.compareOp, lane(a, i), lane(b, i)); });
  }
  void visitSelect(const ExprNode& e) override {
    // Both branches are evaluated, as vector code would, so their loads must be in bounds.
    Lanes c = eval(e.a), t = eval(e.b), f = eval(e.c);
    result_ = map(e.dtype, [&](size_t i) { return lane(c, i) != 0 ? lane(t, i) : lane(f, i); });
  }
  void visitLoad(const ExprNode& e) override {
    Slot& s = slot(e.buffer);
    Lanes index = eval(e.index);
    result_ = map(e.dtype, [&](size_t i) {
      auto at = static_cast<int64_t>(lane(index, i));
      check(s, at, "load");
      double v = (*s.storage)[static_cast<size_t>(at)];
      if (std::isnan(v) && s.local) {
        throw std::runtime_error(strCat("read of unwritten element ", at, " of ", e.buffer->name));
      }
      return v;
    });
  }
  void visitCast(const ExprNode& e) override {
    Lanes a = eval(e.a);
    result_ = map(e.dtype, [&](size_t i) {
      double v = lane(a, i);
      if (e.dtype.isFloat()) return roundTo(e.dtype, v);
      if (e.dtype.isBool()) return v != 0 ? 1.0 : 0.0;
      return roundTo(e.dtype, std::trunc(v));
    });
  }
  void visitCall(const ExprNode& e) override {
    std::vector<Lanes> args;
    for (const Expr& x : e.args) args.push_back(eval(x));
    if (e.intrinsic == Intrinsic::kReduceAdd || e.intrinsic == Intrinsic::kReduceMax ||
        e.intrinsic == Intrinsic::kReduceMin) {
      const Lanes& v = args[0];
      double r = v[0];
      for (size_t i = 1; i < v.size(); ++i) {
        r = e.intrinsic == Intrinsic::kReduceAdd   ? r + v[i]
            : std::isnan(r) || std::isnan(v[i])    ? r + v[i]
            : e.intrinsic == Intrinsic::kReduceMax ? std::fmax(r, v[i])
                                                   : std::fmin(r, v[i]);
      }
      result_ = {roundTo(e.dtype, r)};
      return;
    }
    result_ = map(e.dtype, [&](size_t i) {
      double x = lane(args[0], i);
      double y = args.size() > 1 ? lane(args[1], i) : 0;
      double z = args.size() > 2 ? lane(args[2], i) : 0;
      return roundTo(e.dtype, mathLane(e.intrinsic, x, y, z));
    });
  }
  void visitRamp(const ExprNode& e) override {
    double base = eval(e.a)[0], stride = eval(e.b)[0];
    result_ = map(e.dtype, [&](size_t i) { return base + stride * static_cast<double>(i); });
  }
  void visitBroadcast(const ExprNode& e) override {
    double v = eval(e.a)[0];
    result_ = Lanes(e.dtype.lanes, v);
  }

  void visitFor(const StmtNode& s) override {
    auto lo = static_cast<int64_t>(eval(s.min)[0]);
    auto n = static_cast<int64_t>(eval(s.extent)[0]);
    const std::string& v = s.loopVar->name;
    if (vars_.count(v) != 0) throw std::runtime_error("loop variable " + v + " shadows another");
    for (int64_t i = lo; i < lo + n; ++i) {
      vars_[v] = {static_cast<double>(i)};
      visitStmt(s.body);
    }
    vars_.erase(v);
  }
  void visitStore(const StmtNode& s) override {
    Slot& sl = slot(s.buffer);
    Lanes index = eval(s.index), value = eval(s.value);
    for (size_t i = 0; i < index.size(); ++i) {
      auto at = static_cast<int64_t>(index[i]);
      check(sl, at, "store");
      (*sl.storage)[static_cast<size_t>(at)] = roundTo(s.buffer->dtype, lane(value, i));
    }
  }
  void visitLet(const StmtNode& s) override {
    const std::string& v = s.letVar->name;
    if (vars_.count(v) != 0) throw std::runtime_error("let variable " + v + " shadows another");
    vars_[v] = eval(s.value);
    visitStmt(s.body);
    vars_.erase(v);
  }
  void visitIf(const StmtNode& s) override {
    if (eval(s.value)[0] != 0) {
      visitStmt(s.body);
    } else if (s.elseBody) {
      visitStmt(s.elseBody);
    }
  }
  void visitAssert(const StmtNode& s) override {
    if (eval(s.value)[0] == 0) throw KernelFailed{s.status};
  }
  void visitAllocate(const StmtNode& s) override {
    Storage local(static_cast<size_t>(s.buffer->numel()), NAN);
    if (buffers_.count(s.buffer->name) != 0) {
      throw std::runtime_error("local buffer " + s.buffer->name + " shadows another");
    }
    buffers_[s.buffer->name] = {s.buffer, &local, true};
    visitStmt(s.body);
    buffers_.erase(s.buffer->name);
  }

 private:
  struct Slot {
    Buffer buffer;
    Storage* storage = nullptr;
    bool local = false;
  };

  template <typename F>
  static Lanes map(DataType t, F f) {
    Lanes out(t.lanes);
    for (size_t i = 0; i < out.size(); ++i) out[i] = f(i);
    return out;
  }

  Slot& slot(const Buffer& b) {
    auto it = buffers_.find(b->name);
    if (it == buffers_.end()) throw std::runtime_error("unknown buffer " + b->name);
    return it->second;
  }

  static void check(const Slot& s, int64_t i, const char* what) {
    if (i < 0 || i >= static_cast<int64_t>(s.storage->size())) {
      throw std::runtime_error(
          strCat(what, " out of bounds: ", s.buffer->name, "[", i, "] of ", s.storage->size()));
    }
  }

  Lanes result_;
  std::map<std::string, Lanes> vars_;
  std::map<std::string, Slot> buffers_;
};

}  // namespace

int32_t interpret(const PrimFunc& f, const std::vector<Storage*>& args) {
  if (args.size() != f.params.size()) {
    throw std::runtime_error(
        strCat(f.name, " takes ", f.params.size(), " args, got ", args.size()));
  }
  Interp in;
  for (size_t i = 0; i < args.size(); ++i) {
    if (static_cast<int64_t>(args[i]->size()) != f.params[i]->numel()) {
      throw std::runtime_error(strCat("arg ", i, " of ", f.name, " has ", args[i]->size(),
                                      " elements; expected ", f.params[i]->numel()));
    }
    in.bind(f.params[i], args[i]);
  }
  try {
    in.visitStmt(f.body);
  } catch (const KernelFailed& failed) {
    return failed.status;
  }
  return 0;
}

}  // namespace kiln::tir::testing
