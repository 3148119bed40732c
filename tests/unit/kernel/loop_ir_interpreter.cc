// A reference interpreter of the loop IR with bounds checks, for numeric tests of lowering.
#include "loop_ir_interpreter.h"

#include <cmath>
#include <stdexcept>

#include "kiln/support/error.h"

namespace kiln::kernel::testing {
namespace {

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

class Interp {
 public:
  void bind(const Buffer& b, Storage* s) { buffers_[b->name] = {b, s}; }

  double eval(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kIntImm:
        return static_cast<double>(e->intValue);
      case ExprKind::kFloatImm:
        return e->floatValue;
      case ExprKind::kVar: {
        auto it = vars_.find(e->name);
        if (it == vars_.end()) throw std::runtime_error("unbound variable " + e->name);
        return it->second;
      }
      case ExprKind::kBinary:
        return binary(e);
      case ExprKind::kCompare:
        return compare(e);
      case ExprKind::kSelect: {
        // Both branches are evaluated, as vector code would, so their loads must be in bounds.
        double c = eval(e->a), t = eval(e->b), f = eval(e->c);
        return c != 0 ? t : f;
      }
      case ExprKind::kLoad: {
        Slot& s = slot(e->buffer);
        auto i = static_cast<int64_t>(eval(e->index));
        check(s, i, "load");
        double v = (*s.storage)[static_cast<size_t>(i)];
        if (std::isnan(v) && s.local) {
          throw std::runtime_error(
              strCat("read of unwritten element ", i, " of ", e->buffer->name));
        }
        return v;
      }
      case ExprKind::kCast: {
        double v = eval(e->a);
        if (e->dtype.isFloat()) return roundTo(e->dtype, v);
        if (e->dtype.isBool()) return v != 0 ? 1 : 0;
        return roundTo(e->dtype, std::trunc(v));
      }
      case ExprKind::kCall:
        return callIntrinsic(e);
    }
    throw std::runtime_error("bad expression");
  }

  void exec(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::kFor: {
        auto lo = static_cast<int64_t>(eval(s->min));
        auto n = static_cast<int64_t>(eval(s->extent));
        const std::string& v = s->loopVar->name;
        bool shadow = vars_.count(v) != 0;
        if (shadow) throw std::runtime_error("loop variable " + v + " shadows another");
        for (int64_t i = lo; i < lo + n; ++i) {
          vars_[v] = static_cast<double>(i);
          exec(s->body);
        }
        vars_.erase(v);
        break;
      }
      case StmtKind::kStore: {
        Slot& sl = slot(s->buffer);
        auto i = static_cast<int64_t>(eval(s->index));
        check(sl, i, "store");
        (*sl.storage)[static_cast<size_t>(i)] = roundTo(s->buffer->dtype, eval(s->value));
        break;
      }
      case StmtKind::kSeq:
        for (const Stmt& x : s->seq) exec(x);
        break;
      case StmtKind::kLet: {
        const std::string& v = s->letVar->name;
        if (vars_.count(v) != 0) throw std::runtime_error("let variable " + v + " shadows another");
        vars_[v] = eval(s->value);
        exec(s->body);
        vars_.erase(v);
        break;
      }
      case StmtKind::kIf:
        if (eval(s->value) != 0) {
          exec(s->body);
        } else if (s->elseBody) {
          exec(s->elseBody);
        }
        break;
      case StmtKind::kAllocate: {
        Storage local(static_cast<size_t>(s->buffer->numel()), NAN);
        if (buffers_.count(s->buffer->name) != 0) {
          throw std::runtime_error("local buffer " + s->buffer->name + " shadows another");
        }
        buffers_[s->buffer->name] = {s->buffer, &local, true};
        exec(s->body);
        buffers_.erase(s->buffer->name);
        break;
      }
    }
  }

 private:
  struct Slot {
    Buffer buffer;
    Storage* storage = nullptr;
    bool local = false;
  };

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

  double binary(const Expr& e) {
    double a = eval(e->a), b = eval(e->b);
    DataType t = e->dtype;
    if (t.isFloat()) {
      double r = 0;
      switch (e->binaryOp) {
        case BinaryOp::kAdd:
          r = a + b;
          break;
        case BinaryOp::kSub:
          r = a - b;
          break;
        case BinaryOp::kMul:
          r = a * b;
          break;
        case BinaryOp::kDiv:
          r = a / b;
          break;
        case BinaryOp::kMin:
          r = std::fmin(a, b);
          break;
        case BinaryOp::kMax:
          r = std::fmax(a, b);
          break;
        case BinaryOp::kMod:
          r = std::fmod(a, b);
          break;
        default:
          throw std::runtime_error("integer-only operator on floats");
      }
      return roundTo(t, r);
    }
    auto x = static_cast<int64_t>(a), y = static_cast<int64_t>(b);
    int64_t r = 0;
    switch (e->binaryOp) {
      case BinaryOp::kAdd:
        r = x + y;
        break;
      case BinaryOp::kSub:
        r = x - y;
        break;
      case BinaryOp::kMul:
        r = x * y;
        break;
      case BinaryOp::kDiv:
        if (y == 0) throw std::runtime_error("integer division by zero");
        r = x / y;
        break;
      case BinaryOp::kMod:
        if (y == 0) throw std::runtime_error("integer division by zero");
        r = x % y;
        break;
      case BinaryOp::kFloorDiv:
        if (y == 0) throw std::runtime_error("integer division by zero");
        r = floorDiv(x, y);
        break;
      case BinaryOp::kFloorMod:
        if (y == 0) throw std::runtime_error("integer division by zero");
        r = x - floorDiv(x, y) * y;
        break;
      case BinaryOp::kMin:
        r = std::min(x, y);
        break;
      case BinaryOp::kMax:
        r = std::max(x, y);
        break;
      case BinaryOp::kAnd:
        r = (x != 0 && y != 0) ? 1 : 0;
        break;
      case BinaryOp::kOr:
        r = (x != 0 || y != 0) ? 1 : 0;
        break;
    }
    return roundTo(t, static_cast<double>(r));
  }

  double compare(const Expr& e) {
    double a = eval(e->a), b = eval(e->b);
    switch (e->compareOp) {
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

  double callIntrinsic(const Expr& e) {
    double x = eval(e->args[0]);
    double r = 0;
    switch (e->intrinsic) {
      case Intrinsic::kExp:
        r = std::exp(x);
        break;
      case Intrinsic::kLog:
        r = std::log(x);
        break;
      case Intrinsic::kSqrt:
        r = std::sqrt(x);
        break;
      case Intrinsic::kTanh:
        r = std::tanh(x);
        break;
      case Intrinsic::kAbs:
        r = std::fabs(x);
        break;
      case Intrinsic::kFloor:
        r = std::floor(x);
        break;
      case Intrinsic::kCeil:
        r = std::ceil(x);
        break;
      case Intrinsic::kRound:
        r = std::nearbyint(x);
        break;
      case Intrinsic::kErf:
        r = std::erf(x);
        break;
      case Intrinsic::kSigmoid:
        r = 1 / (1 + std::exp(-x));
        break;
      case Intrinsic::kPow:
        r = std::pow(x, eval(e->args[1]));
        break;
    }
    return roundTo(e->dtype, r);
  }

  std::map<std::string, double> vars_;
  std::map<std::string, Slot> buffers_;
};

}  // namespace

void interpret(const PrimFunc& f, const std::vector<Storage*>& args) {
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
  in.exec(f.body);
}

}  // namespace kiln::kernel::testing
