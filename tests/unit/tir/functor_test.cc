// Checks the visitor reaches every node and the mutator rebuilds only what changed.
#include "kiln/tir/functor.h"

#include <gtest/gtest.h>

#include "kiln/tir/printer.h"

namespace kiln::tir {
namespace {

class CountLoads : public Visitor {
 public:
  int loads = 0, vars = 0;

 protected:
  void visitLoad(const ExprNode& e) override {
    ++loads;
    Visitor::visitLoad(e);
  }
  void visitVar(const ExprNode&) override { ++vars; }
};

// Replaces variable NAME with an immediate.
class Substitute : public Mutator {
 public:
  Substitute(std::string name, int64_t value) : name_(std::move(name)), value_(value) {}

 protected:
  Expr mutateVar(const Expr& e) override { return e->name == name_ ? intImm(value_) : e; }

 private:
  std::string name_;
  int64_t value_;
};

TEST(TirFunctor, VisitorReachesNestedExpressions) {
  Buffer x = makeBuffer("x", DataType::float32(), {8});
  Buffer y = makeBuffer("y", DataType::float32(), {8});
  Expr i = var("i");
  Stmt s = forLoop(i, intImm(0), var("n"), ForKind::kSerial,
                   seq({store(y, i, load(x, i) + load(x, intImm(1))),
                        store(y, ramp(i, intImm(1), 2),
                              call(Intrinsic::kExp, {load(x, ramp(i, intImm(1), 2))}) *
                                      broadcast(floatImm(1.0), 2) +
                                  broadcast(floatImm(0.0), 2))}));
  CountLoads c;
  c.visitStmt(s);
  EXPECT_EQ(c.loads, 3);
  EXPECT_EQ(c.vars, 5);  // n (the extent), then i in a store, a load, a ramp store, a ramp load
}

TEST(TirFunctor, MutatorSharesUnchangedTreesAndFoldsChangedOnes) {
  Buffer x = makeBuffer("x", DataType::float32(), {8});
  Buffer y = makeBuffer("y", DataType::float32(), {8});
  Expr i = var("i");
  Stmt s = forLoop(i, intImm(0), var("n"), ForKind::kSerial,
                   store(y, i + var("k") * intImm(2), load(x, i)));
  Substitute none("zzz", 0);
  EXPECT_EQ(none.mutateStmt(s), s);
  Substitute k("k", 3);
  Stmt out = k.mutateStmt(s);
  ASSERT_NE(out, s);
  EXPECT_EQ(out->body->value, s->body->value);  // the untouched load is shared
  EXPECT_EQ(printExpr(out->body->index), "(i + 6)");
}

}  // namespace
}  // namespace kiln::tir
