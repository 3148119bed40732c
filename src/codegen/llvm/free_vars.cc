// A walk over the loop IR that tracks which names and buffers are bound on the way down.
#include "free_vars.h"

#include <functional>
#include <map>
#include <set>

namespace kiln::codegen {
namespace {

class Collector {
 public:
  void stmt(const kernel::Stmt& s) {
    if (s == nullptr) return;
    switch (s->kind) {
      case kernel::StmtKind::kFor:
        expr(s->min);
        expr(s->extent);
        scoped(s->loopVar->name, [&] { stmt(s->body); });
        break;
      case kernel::StmtKind::kStore:
        buffer(s->buffer);
        expr(s->index);
        expr(s->value);
        break;
      case kernel::StmtKind::kSeq:
        for (const kernel::Stmt& child : s->seq) stmt(child);
        break;
      case kernel::StmtKind::kLet:
        expr(s->value);
        scoped(s->letVar->name, [&] { stmt(s->body); });
        break;
      case kernel::StmtKind::kIf:
        expr(s->value);
        stmt(s->body);
        stmt(s->elseBody);
        break;
      case kernel::StmtKind::kAllocate:
        allocated_.insert(s->buffer.get());
        stmt(s->body);
        allocated_.erase(allocated_.find(s->buffer.get()));
        break;
    }
  }

  void scoped(const std::string& name, const std::function<void()>& f) {
    ++bound_[name];
    f();
    --bound_[name];
  }

  FreeVars result() {
    FreeVars fv;
    fv.vars.assign(vars_.begin(), vars_.end());
    fv.buffers = buffers_;
    return fv;
  }

 private:
  void expr(const kernel::Expr& e) {
    if (e == nullptr) return;
    if (e->kind == kernel::ExprKind::kVar && bound_[e->name] == 0) vars_.insert(e->name);
    if (e->kind == kernel::ExprKind::kLoad) buffer(e->buffer);
    expr(e->a);
    expr(e->b);
    expr(e->c);
    expr(e->index);
    for (const kernel::Expr& arg : e->args) expr(arg);
  }

  void buffer(const kernel::Buffer& b) {
    if (allocated_.count(b.get()) != 0) return;
    if (seenBuffers_.insert(b.get()).second) buffers_.push_back(b);
  }

  std::map<std::string, int> bound_;
  std::multiset<const kernel::BufferNode*> allocated_;
  std::set<std::string> vars_;
  std::set<const kernel::BufferNode*> seenBuffers_;
  std::vector<kernel::Buffer> buffers_;
};

}  // namespace

FreeVars collectFreeVars(const kernel::Stmt& body, const std::string& bound) {
  Collector c;
  c.scoped(bound, [&] { c.stmt(body); });
  return c.result();
}

}  // namespace kiln::codegen
