// The text form of the loop IR. Every construct prints in one unambiguous way (binary operators
// fully parenthesised, typed immediates, explicit scopes) so that parser.cc reads it back into the
// same tree.
#include "kiln/tir/printer.h"

#include <cstdio>
#include <sstream>
#include <unordered_map>

#include "kiln/support/error.h"
#include "kiln/tir/functor.h"

namespace kiln::tir {
namespace {

bool isInfix(BinaryOp op) {
  switch (op) {
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod:
    case BinaryOp::kMin:
    case BinaryOp::kMax:
    case BinaryOp::kShl:
    case BinaryOp::kShr:
      return false;
    default:
      return true;
  }
}

std::string floatText(double v, DataType t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, t.bits == 32 ? "%.9g" : "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // n: nan, inf
  if (t.bits == 32) return s + "f";
  if (t.bits == 64) return s;
  // Appended piece by piece: g++ 12 reports "a + b + c" of strings here as a false -Wrestrict.
  std::string cast = "(";
  cast += t.str();
  cast += ")";
  cast += s;
  return cast;
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

// Names printed instead of some buffers' own (printPrimFuncCanonical's positional names).
using BufferNames = std::unordered_map<const BufferNode*, std::string>;

const std::string& nameOf(const Buffer& b, const BufferNames* names) {
  if (names) {
    if (auto it = names->find(b.get()); it != names->end()) return it->second;
  }
  return b->name;
}

std::string exprText(const Expr& e, const BufferNames* names);

class ExprPrinter : public Visitor {
 public:
  ExprPrinter(std::ostream& os, const BufferNames* names) : os_(os), names_(names) {}

 protected:
  void visitLeaf(const ExprNode& e) override {
    if (e.kind == ExprKind::kFloatImm) {
      os_ << floatText(e.floatValue, e.dtype);
    } else if (e.dtype.isBool()) {
      os_ << (e.intValue != 0 ? "true" : "false");
    } else if (e.dtype == DataType::int64()) {
      os_ << e.intValue;
    } else {
      os_ << "(" << e.dtype.str() << ")" << e.intValue;
    }
  }
  void visitVar(const ExprNode& e) override { os_ << e.name; }
  void visitBinary(const ExprNode& e) override {
    if (isInfix(e.binaryOp)) {
      infix(e.a, binaryOpName(e.binaryOp), e.b);
    } else {
      callLike(binaryOpName(e.binaryOp), {e.a, e.b});
    }
  }
  void visitCompare(const ExprNode& e) override { infix(e.a, compareOpName(e.compareOp), e.b); }
  void visitSelect(const ExprNode& e) override { callLike("select", {e.a, e.b, e.c}); }
  void visitLoad(const ExprNode& e) override {
    os_ << nameOf(e.buffer, names_) << "[";
    visitExpr(e.index);
    os_ << "]";
  }
  void visitCast(const ExprNode& e) override {
    os_ << "(" << e.dtype.str() << ")";
    visitExpr(e.a);
  }
  void visitCall(const ExprNode& e) override { callLike(intrinsicName(e.intrinsic), e.args); }
  void visitRamp(const ExprNode& e) override {
    os_ << "ramp(";
    visitExpr(e.a);
    os_ << ", ";
    visitExpr(e.b);
    os_ << ", " << e.dtype.lanes << ")";
  }
  void visitBroadcast(const ExprNode& e) override {
    os_ << "broadcast(";
    visitExpr(e.a);
    os_ << ", " << e.dtype.lanes << ")";
  }

 private:
  void infix(const Expr& a, const char* op, const Expr& b) {
    os_ << "(";
    visitExpr(a);
    os_ << " " << op << " ";
    visitExpr(b);
    os_ << ")";
  }
  void callLike(const char* name, const std::vector<Expr>& args) {
    os_ << name << "(";
    for (size_t i = 0; i < args.size(); ++i) {
      if (i) os_ << ", ";
      visitExpr(args[i]);
    }
    os_ << ")";
  }

  std::ostream& os_;
  const BufferNames* names_;
};

class StmtPrinter : public Visitor {
 public:
  StmtPrinter(std::ostream& os, int indent, const BufferNames* names)
      : os_(os), indent_(indent), names_(names) {}

 protected:
  void visitFor(const StmtNode& s) override {
    line() << (s.forKind == ForKind::kSerial ? "" : std::string(forKindName(s.forKind)) + " ")
           << "for (" << s.loopVar->name << ", " << expr(s.min) << ", " << expr(s.extent)
           << ") {\n";
    block(s.body);
    line() << "}\n";
  }
  void visitStore(const StmtNode& s) override {
    line() << nameOf(s.buffer, names_) << "[" << expr(s.index) << "] = " << expr(s.value) << ";\n";
  }
  void visitSeq(const StmtNode& s) override {
    for (size_t i = 0; i < s.seq.size(); ++i) {
      const Stmt& x = s.seq[i];
      // A binding scopes the rest of its block; one followed by more statements gets braces so
      // they stay outside it.
      bool scoped = x->kind == StmtKind::kLet || x->kind == StmtKind::kAllocate;
      if (scoped && i + 1 < s.seq.size()) {
        line() << "{\n";
        block(x);
        line() << "}\n";
      } else {
        visitStmt(x);
      }
    }
  }
  void visitLet(const StmtNode& s) override {
    line() << "const " << s.letVar->dtype.str() << " " << s.letVar->name << " = " << expr(s.value)
           << ";\n";
    visitStmt(s.body);
  }
  void visitIf(const StmtNode& s) override {
    line() << "if (" << expr(s.value) << ") {\n";
    block(s.body);
    if (s.elseBody) {
      line() << "} else {\n";
      block(s.elseBody);
    }
    line() << "}\n";
  }
  void visitAssert(const StmtNode& s) override {
    line() << "assert(" << expr(s.value) << ", " << s.status << ");\n";
  }
  void visitAllocate(const StmtNode& s) override {
    line() << s.buffer->dtype.str() << " " << nameOf(s.buffer, names_) << shapeText(s.buffer->shape)
           << ";\n";
    visitStmt(s.body);
  }

 private:
  std::ostream& line() { return os_ << std::string(static_cast<size_t>(indent_) * 2, ' '); }
  void block(const Stmt& s) {
    ++indent_;
    visitStmt(s);
    --indent_;
  }

  std::string expr(const Expr& e) const { return exprText(e, names_); }

  std::ostream& os_;
  int indent_;
  const BufferNames* names_;
};

std::string exprText(const Expr& e, const BufferNames* names) {
  KILN_CHECK(e != nullptr, "printing a null expression");
  std::ostringstream os;
  ExprPrinter(os, names).visitExpr(e);
  return os.str();
}

std::string funcText(const PrimFunc& f, const std::string& name, const BufferNames* names) {
  std::ostringstream os;
  os << "kernel " << name << "(";
  for (size_t i = 0; i < f.params.size(); ++i) {
    const Buffer& b = f.params[i];
    os << (i ? ", " : "") << b->dtype.str() << "* " << nameOf(b, names) << shapeText(b->shape);
  }
  os << ") {\n";
  StmtPrinter(os, 1, names).visitStmt(f.body);
  os << "}\n";
  return os.str();
}

}  // namespace

std::string printExpr(const Expr& e) { return exprText(e, nullptr); }

std::string printStmt(const Stmt& s, int indent) {
  std::ostringstream os;
  StmtPrinter(os, indent, nullptr).visitStmt(s);
  return os.str();
}

std::string printPrimFunc(const PrimFunc& f) { return funcText(f, f.name, nullptr); }

std::string printPrimFuncCanonical(const PrimFunc& f) {
  BufferNames names;
  for (size_t i = 0; i < f.params.size(); ++i) names[f.params[i].get()] = strCat("p", i);
  return funcText(f, "", &names);
}

}  // namespace kiln::tir
