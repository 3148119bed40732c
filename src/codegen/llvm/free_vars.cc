// A walk over the loop IR that tracks which names and buffers are bound on the way down.
#include "free_vars.h"

#include <map>
#include <set>

#include "kiln/tir/functor.h"

namespace kiln::codegen {
namespace {

class Collector : public tir::Visitor {
 public:
  void bind(const std::string& name) { ++bound_[name]; }

  FreeVars result() const {
    FreeVars fv;
    fv.vars.assign(vars_.begin(), vars_.end());
    fv.buffers = buffers_;
    return fv;
  }

 protected:
  void visitVar(const tir::ExprNode& e) override {
    if (bound_[e.name] == 0) vars_.insert(e.name);
  }
  void visitLoad(const tir::ExprNode& e) override {
    buffer(e.buffer);
    tir::Visitor::visitLoad(e);
  }
  void visitStore(const tir::StmtNode& s) override {
    buffer(s.buffer);
    tir::Visitor::visitStore(s);
  }
  void visitFor(const tir::StmtNode& s) override {
    visitExpr(s.min);
    visitExpr(s.extent);
    ++bound_[s.loopVar->name];
    visitStmt(s.body);
    --bound_[s.loopVar->name];
  }
  void visitLet(const tir::StmtNode& s) override {
    visitExpr(s.value);
    ++bound_[s.letVar->name];
    visitStmt(s.body);
    --bound_[s.letVar->name];
  }
  void visitAllocate(const tir::StmtNode& s) override {
    allocated_.insert(s.buffer.get());
    visitStmt(s.body);
    allocated_.erase(allocated_.find(s.buffer.get()));
  }

 private:
  void buffer(const tir::Buffer& b) {
    if (allocated_.count(b.get()) != 0) return;
    if (seenBuffers_.insert(b.get()).second) buffers_.push_back(b);
  }

  std::map<std::string, int> bound_;
  std::multiset<const tir::BufferNode*> allocated_;
  std::set<std::string> vars_;
  std::set<const tir::BufferNode*> seenBuffers_;
  std::vector<tir::Buffer> buffers_;
};

}  // namespace

FreeVars collectFreeVars(const tir::Stmt& body, const std::string& bound) {
  Collector c;
  c.bind(bound);
  c.visitStmt(body);
  return c.result();
}

}  // namespace kiln::codegen
