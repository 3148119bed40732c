// C-like text of a kernel, so that --dump-ir output and test failures can be read by people.
#include <cstdio>
#include <sstream>
#include <string>

#include "kiln/kernel/loop_ir.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

const char* binaryOpText(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return " + ";
    case BinaryOp::kSub:
      return " - ";
    case BinaryOp::kMul:
      return " * ";
    case BinaryOp::kDiv:
      return " / ";
    case BinaryOp::kMod:
      return " % ";
    case BinaryOp::kAnd:
      return " && ";
    case BinaryOp::kOr:
      return " || ";
    default:
      return nullptr;
  }
}

const char* binaryCallName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kFloorDiv:
      return "floordiv";
    case BinaryOp::kFloorMod:
      return "floormod";
    case BinaryOp::kMin:
      return "min";
    case BinaryOp::kMax:
      return "max";
    default:
      return "?";
  }
}

const char* compareOpText(CompareOp op) {
  switch (op) {
    case CompareOp::kLT:
      return " < ";
    case CompareOp::kLE:
      return " <= ";
    case CompareOp::kGT:
      return " > ";
    case CompareOp::kGE:
      return " >= ";
    case CompareOp::kEQ:
      return " == ";
    case CompareOp::kNE:
      return " != ";
  }
  return " ? ";
}

const char* intrinsicName(Intrinsic f) {
  switch (f) {
    case Intrinsic::kExp:
      return "exp";
    case Intrinsic::kLog:
      return "log";
    case Intrinsic::kSqrt:
      return "sqrt";
    case Intrinsic::kTanh:
      return "tanh";
    case Intrinsic::kAbs:
      return "abs";
    case Intrinsic::kFloor:
      return "floor";
    case Intrinsic::kCeil:
      return "ceil";
    case Intrinsic::kRound:
      return "round";
    case Intrinsic::kErf:
      return "erf";
    case Intrinsic::kSigmoid:
      return "sigmoid";
    case Intrinsic::kPow:
      return "pow";
  }
  return "?";
}

const char* forKindText(ForKind k) {
  switch (k) {
    case ForKind::kSerial:
      return "for";
    case ForKind::kParallel:
      return "parallel for";
    case ForKind::kVectorized:
      return "vectorized for";
    case ForKind::kUnrolled:
      return "unrolled for";
  }
  return "for";
}

std::string floatText(double v, DataType t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, t.bits == 64 ? "%.17g" : "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // n: nan, inf
  if (t.bits == 32) s += "f";
  return s;
}

class Printer {
 public:
  std::string expr(const Expr& e) {
    std::ostringstream os;
    printExpr(os, e);
    return os.str();
  }

  void stmt(const Stmt& s, int indent) {
    std::string pad(static_cast<size_t>(indent) * 2, ' ');
    switch (s->kind) {
      case StmtKind::kFor:
        out_ << pad << forKindText(s->forKind) << " (int64 " << s->loopVar->name << " = "
             << expr(s->min) << "; " << s->loopVar->name << " < " << expr(s->min + s->extent)
             << "; ++" << s->loopVar->name << ") {\n";
        stmt(s->body, indent + 1);
        out_ << pad << "}\n";
        break;
      case StmtKind::kStore:
        out_ << pad << s->buffer->name << "[" << expr(s->index) << "] = " << expr(s->value)
             << ";\n";
        break;
      case StmtKind::kSeq:
        for (const Stmt& x : s->seq) stmt(x, indent);
        break;
      case StmtKind::kLet:
        out_ << pad << "const " << s->letVar->dtype.str() << " " << s->letVar->name << " = "
             << expr(s->value) << ";\n";
        stmt(s->body, indent);
        break;
      case StmtKind::kIf:
        out_ << pad << "if (" << expr(s->value) << ") {\n";
        stmt(s->body, indent + 1);
        if (s->elseBody) {
          out_ << pad << "} else {\n";
          stmt(s->elseBody, indent + 1);
        }
        out_ << pad << "}\n";
        break;
      case StmtKind::kAllocate:
        out_ << pad << s->buffer->dtype.str() << " " << s->buffer->name << "[" << s->buffer->numel()
             << "];\n";
        stmt(s->body, indent);
        break;
    }
  }

  std::string str() const { return out_.str(); }
  std::ostringstream& out() { return out_; }

 private:
  void printExpr(std::ostringstream& os, const Expr& e) {
    switch (e->kind) {
      case ExprKind::kIntImm:
        if (e->dtype.isBool()) {
          os << (e->intValue != 0 ? "true" : "false");
        } else if (e->dtype == DataType::int64()) {
          os << e->intValue;
        } else {
          os << "(" << e->dtype.str() << ")" << e->intValue;
        }
        break;
      case ExprKind::kFloatImm:
        os << floatText(e->floatValue, e->dtype);
        break;
      case ExprKind::kVar:
        os << e->name;
        break;
      case ExprKind::kBinary:
        if (const char* text = binaryOpText(e->binaryOp)) {
          os << "(";
          printExpr(os, e->a);
          os << text;
          printExpr(os, e->b);
          os << ")";
        } else {
          os << binaryCallName(e->binaryOp) << "(";
          printExpr(os, e->a);
          os << ", ";
          printExpr(os, e->b);
          os << ")";
        }
        break;
      case ExprKind::kCompare:
        os << "(";
        printExpr(os, e->a);
        os << compareOpText(e->compareOp);
        printExpr(os, e->b);
        os << ")";
        break;
      case ExprKind::kSelect:
        os << "(";
        printExpr(os, e->a);
        os << " ? ";
        printExpr(os, e->b);
        os << " : ";
        printExpr(os, e->c);
        os << ")";
        break;
      case ExprKind::kLoad:
        os << e->buffer->name << "[";
        printExpr(os, e->index);
        os << "]";
        break;
      case ExprKind::kCast:
        os << "(" << e->dtype.str() << ")";
        printExpr(os, e->a);
        break;
      case ExprKind::kCall:
        os << intrinsicName(e->intrinsic) << "(";
        for (size_t i = 0; i < e->args.size(); ++i) {
          if (i) os << ", ";
          printExpr(os, e->args[i]);
        }
        os << ")";
        break;
    }
  }

  std::ostringstream out_;
};

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

std::string printPrimFunc(const PrimFunc& f) {
  Printer p;
  p.out() << "kernel " << f.name << "(";
  for (size_t i = 0; i < f.params.size(); ++i) {
    const Buffer& b = f.params[i];
    p.out() << (i ? ", " : "") << b->dtype.str() << "* " << b->name << shapeText(b->shape);
  }
  p.out() << ") {\n";
  if (f.body) p.stmt(f.body, 1);
  p.out() << "}\n";
  return p.str();
}

}  // namespace kiln::kernel
