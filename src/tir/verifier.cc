// The loop IR verifier: scoping of variables and buffers, unique buffer names, loop extents and
// the bounds of constant indices, checked once after lowering so that codegen can trust its input
// (types and vector widths the constructors already check).
#include "kiln/tir/verifier.h"

#include <map>
#include <set>

#include "kiln/support/error.h"
#include "kiln/tir/functor.h"
#include "kiln/tir/printer.h"

namespace kiln::tir {
namespace {

class Checker : public Visitor {
 public:
  explicit Checker(const PrimFunc& f) : f_(f) {}

  std::vector<std::string> run() {
    for (const Buffer& b : f_.params) {
      if (b == nullptr) {
        problem("a parameter is null");
        continue;
      }
      declareBuffer(b, "parameter");
      live_.insert(b.get());
    }
    if (f_.body == nullptr) problem("the kernel has no body");
    visitStmt(f_.body);
    return problems_;
  }

 protected:
  void visitVar(const ExprNode& e) override {
    auto it = vars_.find(e.name);
    if (it == vars_.end() || it->second.empty()) {
      problem(strCat("variable '", e.name, "' is used outside the loop or let that binds it"));
    } else if (it->second.back() != e.dtype) {
      problem(strCat("variable '", e.name, "' is used as ", e.dtype.str(), " but bound as ",
                     it->second.back().str()));
    }
  }
  void visitLoad(const ExprNode& e) override {
    access(e.buffer, e.index, "load from");
    Visitor::visitLoad(e);
  }
  void visitStore(const StmtNode& s) override {
    access(s.buffer, s.index, "store to");
    Visitor::visitStore(s);
  }
  void visitFor(const StmtNode& s) override {
    visitExpr(s.min);
    visitExpr(s.extent);
    if (isIntImm(s.extent) && s.extent->intValue < 0) {
      problem(strCat("loop '", s.loopVar->name, "' has negative extent ", s.extent->intValue));
    }
    bind(s.loopVar);
    visitStmt(s.body);
    unbind(s.loopVar);
  }
  void visitLet(const StmtNode& s) override {
    visitExpr(s.value);
    bind(s.letVar);
    visitStmt(s.body);
    unbind(s.letVar);
  }
  void visitAllocate(const StmtNode& s) override {
    declareBuffer(s.buffer, "local buffer");
    live_.insert(s.buffer.get());
    visitStmt(s.body);
    live_.erase(s.buffer.get());
  }

 private:
  void problem(std::string text) { problems_.push_back(std::move(text)); }

  void declareBuffer(const Buffer& b, const char* what) {
    if (!names_.insert(b->name).second) {
      problem(strCat(what, " '", b->name, "' reuses the name of another buffer"));
    }
  }

  void bind(const Expr& v) {
    std::vector<DataType>& stack = vars_[v->name];
    if (!stack.empty()) problem(strCat("variable '", v->name, "' is bound again inside its scope"));
    stack.push_back(v->dtype);
  }
  void unbind(const Expr& v) { vars_[v->name].pop_back(); }

  void access(const Buffer& b, const Expr& index, const char* what) {
    if (live_.count(b.get()) == 0) {
      problem(strCat(what, " buffer '", b->name, "', which is neither a parameter nor allocated ",
                     "around the access"));
      return;
    }
    int64_t lo = 0, hi = 0;
    if (!constantRange(index, &lo, &hi)) return;
    if (lo < 0 || hi >= b->numel()) {
      problem(strCat(what, " '", b->name, "' at ", printExpr(index), " reaches elements ", lo, "..",
                     hi, " of ", b->numel()));
    }
  }

  // The smallest and largest element a constant index (an immediate, or a ramp or broadcast of
  // immediates) touches; false when the index is not constant.
  static bool constantRange(const Expr& index, int64_t* lo, int64_t* hi) {
    if (isIntImm(index)) {
      *lo = *hi = index->intValue;
      return true;
    }
    if (index->kind == ExprKind::kBroadcast && isIntImm(index->a)) {
      *lo = *hi = index->a->intValue;
      return true;
    }
    if (index->kind == ExprKind::kRamp && isIntImm(index->a) && isIntImm(index->b)) {
      int64_t first = index->a->intValue;
      int64_t last = first + index->b->intValue * (index->dtype.lanes - 1);
      *lo = std::min(first, last);
      *hi = std::max(first, last);
      return true;
    }
    return false;
  }

  const PrimFunc& f_;
  std::vector<std::string> problems_;
  std::map<std::string, std::vector<DataType>> vars_;
  std::set<std::string> names_;
  std::set<const BufferNode*> live_;
};

}  // namespace

std::vector<std::string> verify(const PrimFunc& f) { return Checker(f).run(); }

void verifyOrThrow(const PrimFunc& f) {
  std::vector<std::string> problems = verify(f);
  if (problems.empty()) return;
  std::string text;
  for (const std::string& p : problems) text += "\n  - " + p;
  throw InternalError(strCat("kernel ", f.name, " is malformed:", text));
}

}  // namespace kiln::tir
