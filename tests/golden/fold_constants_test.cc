// fold-constants on the chain exporters emit for x.view(x.size(0), -1), built through the graph
// API because the text parser cannot type a Reshape whose target is not yet a constant.
#include <gtest/gtest.h>

#include "kiln/ir/op_registry.h"
#include "kiln/ir/verifier.h"
#include "kiln/support/error.h"
#include "kiln/transform/passes.h"

namespace kiln::transform {
namespace {

using runtime::DataType;
using runtime::NDArray;

NDArray int64s(const runtime::Shape& shape, std::vector<int64_t> values) {
  return NDArray::fromBytes(shape, DataType::int64(), values.data(), values.size() * 8);
}

ir::Node* add(ir::Graph& g, const std::string& op, std::vector<ir::Value*> inputs,
              const std::string& out, ir::Attrs attrs = {}, bool infer = true) {
  ir::Node* n = g.addNode(op, out, std::move(inputs), {out}, std::move(attrs));
  if (infer) ir::inferTypes(*n);
  return n;
}

TEST(FoldConstants, ShapeChainBecomesConstantReshapeTarget) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", {DataType::float32(), {5, 3, 4, 4}});
  ir::Value* zero = g.addConstant("zero", int64s({}, {0}));
  ir::Value* axes = g.addConstant("axes", int64s({1}, {0}));
  ir::Value* minus1 = g.addConstant("minus1", int64s({1}, {-1}));
  ir::Attrs axis0;
  axis0.set("axis", int64_t{0});
  ir::Node* s = add(g, "Shape", {x}, "s");
  ir::Node* n = add(g, "Gather", {s->outputs[0], zero}, "n", axis0);
  ir::Node* n1 = add(g, "Unsqueeze", {n->outputs[0], axes}, "n1");
  ir::Node* target = add(g, "Concat", {n1->outputs[0], minus1}, "target", axis0);
  // Reshape cannot be typed until its target is constant: that is what the pass is for.
  ir::Node* reshape = add(g, "Reshape", {x, target->outputs[0]}, "flat", {}, false);
  ir::Node* relu = add(g, "Relu", {reshape->outputs[0]}, "y", {}, false);
  g.outputs().push_back(relu->outputs[0]);

  foldConstants(g);

  ASSERT_EQ(g.nodes().size(), 2u);
  EXPECT_EQ(g.nodes()[0], reshape);
  const ir::Value* t = reshape->inputs[1];
  ASSERT_TRUE(t->isConstant());
  EXPECT_EQ(t->name, "target");
  EXPECT_EQ(t->type.str(), "int64[2]");
  EXPECT_EQ(t->constant->data<int64_t>()[0], 5);
  EXPECT_EQ(t->constant->data<int64_t>()[1], -1);
  EXPECT_EQ(g.constants().size(), 1u) << "the chain's constants are dead and removed";
  ir::inferTypes(*reshape);
  ir::inferTypes(*relu);
  EXPECT_EQ(reshape->outputs[0]->type.str(), "float32[5,48]");
  EXPECT_NO_THROW(ir::verifyGraph(g));
}

TEST(FoldConstants, LeavesInputDependentNodesAlone) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", {DataType::float32(), {4}});
  ir::Node* r = add(g, "Relu", {x}, "r");
  ir::Node* y = add(g, "Neg", {r->outputs[0]}, "y");
  g.outputs().push_back(y->outputs[0]);
  foldConstants(g);
  EXPECT_EQ(g.nodes().size(), 2u);
  EXPECT_TRUE(g.constants().empty());
}

TEST(PassRegistry, FindsEveryPassAndNamesTheKnownOnes) {
  for (const char* name : {"fold-constants", "simplify", "fold-batch-norm", "fuse-ops"}) {
    EXPECT_EQ(findPass(name).name, name);
  }
  try {
    findPass("fold-everything");
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("'fold-everything'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fuse-ops"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace kiln::transform
