// What a successful import produces: constants, inputs, attributes, names, folded shape chains.
#include "kiln/frontend/onnx/importer.h"

#include <gtest/gtest.h>

#include "kiln/ir/op_registry.h"
#include "kiln/ir/verifier.h"
#include "onnx_model_builder.h"

namespace kiln::frontend::onnx {
namespace {

using test::OnnxModelBuilder;

const ir::Node* findNode(const ir::Graph& g, const std::string& name) {
  for (const ir::Node* n : g.nodes()) {
    if (n->name == name) return n;
  }
  return nullptr;
}

TEST(Importer, InitializersBecomeConstantsAndNotInputs) {
  OnnxModelBuilder b(9);
  b.input("x", {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{3}});
  b.input("W", {int64_t{4}, int64_t{2}, int64_t{1}, int64_t{1}});  // old style: typed weights
  b.floatInit("W", {4, 2, 1, 1}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto* bias = b.graph().add_initializer();  // raw_data, as most exporters write it
  bias->set_name("B");
  bias->set_data_type(::onnx::TensorProto::FLOAT);
  bias->add_dims(4);
  float bv[4] = {0.25f, -1, 2, 8};
  bias->set_raw_data(bv, sizeof bv);
  b.node("Conv", {"x", "W", "B"}, {"y"}, "conv");
  b.output("y");
  auto g = importOnnx(b.bytes());
  EXPECT_NO_THROW(ir::verifyGraph(*g));

  ASSERT_EQ(g->inputs().size(), 1u);
  EXPECT_EQ(g->inputs()[0]->name, "x");
  const ir::Value* w = g->findValue("W");
  ASSERT_NE(w, nullptr);
  ASSERT_TRUE(w->isConstant());
  EXPECT_EQ(w->type.str(), "float32[4,2,1,1]");
  EXPECT_EQ(w->constant->data<float>()[7], 8.0f);
  const ir::Value* bv2 = g->findValue("B");
  ASSERT_NE(bv2, nullptr);
  ASSERT_TRUE(bv2->isConstant());
  EXPECT_EQ(bv2->constant->data<float>()[0], 0.25f);
  EXPECT_EQ(bv2->constant->data<float>()[3], 8.0f);
  const ir::Node* conv = findNode(*g, "conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->inputs[1], w);
  EXPECT_EQ(g->outputs()[0]->type.str(), "float32[1,4,3,3]");
  EXPECT_EQ(g->opsetVersion, 9);
}

TEST(Importer, AttributesOfEveryKind) {
  OnnxModelBuilder b(13);
  b.input("x", {int64_t{1}, int64_t{1}, int64_t{5}, int64_t{5}});
  b.floatInit("W", {1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  auto* conv = b.node("Conv", {"x", "W"}, {"c"}, "conv");
  test::addIntsAttr(conv, "strides", {2, 2});
  test::addIntsAttr(conv, "pads", {1, 1, 1, 1});
  auto* autoPad = conv->add_attribute();
  autoPad->set_name("auto_pad");
  autoPad->set_type(::onnx::AttributeProto::STRING);
  autoPad->set_s("NOTSET");
  auto* leaky = b.node("LeakyRelu", {"c"}, {"y"}, "leaky");
  test::addFloatAttr(leaky, "alpha", 0.25f);
  b.output("y");
  auto g = importOnnx(b.bytes());
  EXPECT_NO_THROW(ir::verifyGraph(*g));

  const ir::Node* c = findNode(*g, "conv");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->attrs.getInts("strides", {}), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(c->attrs.getInts("pads", {}), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(c->attrs.getString("auto_pad", ""), "NOTSET");
  EXPECT_EQ(g->findValue("c")->type.str(), "float32[1,1,3,3]");
  const ir::Node* l = findNode(*g, "leaky");
  ASSERT_NE(l, nullptr);
  EXPECT_DOUBLE_EQ(l->attrs.getFloat("alpha", 0), 0.25);
}

// ConstantOfShape's `value` is a TENSOR attribute; Shape of a static input folds, so the whole
// chain becomes one constant filled from that tensor.
TEST(Importer, TensorAttributeFeedsFoldedConstant) {
  OnnxModelBuilder b(13);
  b.input("x", {int64_t{2}, int64_t{3}});
  b.node("Shape", {"x"}, {"s"}, "shape");
  auto* cos = b.node("ConstantOfShape", {"s"}, {"fill"}, "fill");
  auto* a = cos->add_attribute();
  a->set_name("value");
  a->set_type(::onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(::onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_float_data(7.5f);
  b.node("Add", {"x", "fill"}, {"y"}, "add");
  b.output("y");
  auto g = importOnnx(b.bytes());
  EXPECT_NO_THROW(ir::verifyGraph(*g));

  ASSERT_EQ(g->nodes().size(), 1u);
  const ir::Node* add = g->nodes()[0];
  EXPECT_EQ(add->op, "Add");
  ASSERT_TRUE(add->inputs[1]->isConstant());
  EXPECT_EQ(add->inputs[1]->name, "fill");
  EXPECT_EQ(add->inputs[1]->type.str(), "float32[2,3]");
  for (int i = 0; i < 6; ++i) EXPECT_EQ(add->inputs[1]->constant->data<float>()[i], 7.5f);
}

TEST(Importer, ConstantNodesOfEveryForm) {
  OnnxModelBuilder b(13);
  b.input("x", {int64_t{3}});
  auto* c1 = b.node("Constant", {}, {"k"}, "k");
  auto* a = c1->add_attribute();
  a->set_name("value_floats");
  a->set_type(::onnx::AttributeProto::FLOATS);
  for (float f : {1.0f, 2.0f, 3.0f}) a->add_floats(f);
  auto* c2 = b.node("Constant", {}, {"scalar"}, "");
  test::addFloatAttr(c2, "value_float", 0.5f);
  b.node("Mul", {"x", "k"}, {"m"}, "mul");
  b.node("Add", {"m", "scalar"}, {"y"}, "add");
  b.output("y");
  auto g = importOnnx(b.bytes());
  EXPECT_NO_THROW(ir::verifyGraph(*g));

  const ir::Value* k = g->findValue("k");
  ASSERT_NE(k, nullptr);
  ASSERT_TRUE(k->isConstant());
  EXPECT_EQ(k->type.str(), "float32[3]");
  EXPECT_EQ(k->constant->data<float>()[2], 3.0f);
  const ir::Value* s = g->findValue("scalar");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->type.str(), "float32[]");
  EXPECT_EQ(s->constant->data<float>()[0], 0.5f);
  EXPECT_EQ(g->nodes().size(), 2u);
}

TEST(Importer, NamesArePreservedOrGenerated) {
  OnnxModelBuilder b(13);
  b.input("input.1", {int64_t{4}});
  b.node("Relu", {"input.1"}, {"/act/Relu_output_0"}, "/act/Relu");
  b.node("Neg", {"/act/Relu_output_0"}, {"n1"}, "");
  b.node("Neg", {"n1"}, {"n2"}, "");
  b.node("Abs", {"n2"}, {"out"}, "/act/Relu");  // a duplicate node name
  b.output("out");
  auto g = importOnnx(b.bytes());
  EXPECT_NO_THROW(ir::verifyGraph(*g));

  std::vector<std::string> names;
  for (const ir::Node* n : g->nodes()) names.push_back(n->name);
  EXPECT_EQ(names, (std::vector<std::string>{"/act/Relu", "Neg_0", "Neg_1", "/act/Relu_1"}));
  EXPECT_NE(g->findValue("/act/Relu_output_0"), nullptr);
  EXPECT_EQ(g->inputs()[0]->name, "input.1");
  EXPECT_EQ(g->outputs()[0]->name, "out");
  EXPECT_EQ(g->name, "test_graph");
}

// The PyTorch export of x.view(x.size(0), -1): Reshape's target is computed from x's shape.
TEST(Importer, ShapeChainFoldsSoReshapeIsStatic) {
  OnnxModelBuilder b(13);
  b.input("x", {std::string("N"), int64_t{3}, int64_t{4}, int64_t{4}});
  b.node("Shape", {"x"}, {"s"}, "shape");
  b.int64Init("zero", {}, {0});
  auto* gather = b.node("Gather", {"s", "zero"}, {"n"}, "gather");
  test::addIntAttr(gather, "axis", 0);
  b.int64Init("axes", {1}, {0});
  b.node("Unsqueeze", {"n", "axes"}, {"n1"}, "unsqueeze");
  b.int64Init("minus1", {1}, {-1});
  auto* concat = b.node("Concat", {"n1", "minus1"}, {"target"}, "concat");
  test::addIntAttr(concat, "axis", 0);
  b.node("Reshape", {"x", "target"}, {"flat"}, "reshape");
  b.node("Relu", {"flat"}, {"y"}, "relu");
  b.output("y");
  ImportOptions opts;
  opts.inputShapes["x"] = {5, 3, 4, 4};
  auto g = importOnnx(b.bytes(), opts);
  EXPECT_NO_THROW(ir::verifyGraph(*g));

  ASSERT_EQ(g->nodes().size(), 2u);
  const ir::Node* reshape = g->nodes()[0];
  EXPECT_EQ(reshape->op, "Reshape");
  const ir::Value* target = reshape->inputs[1];
  ASSERT_TRUE(target->isConstant());
  EXPECT_EQ(target->name, "target");
  ASSERT_EQ(target->constant->numel(), 2);
  EXPECT_EQ(target->constant->data<int64_t>()[0], 5);
  EXPECT_EQ(target->constant->data<int64_t>()[1], -1);
  EXPECT_EQ(g->outputs()[0]->type.str(), "float32[5,48]");
  EXPECT_EQ(g->constants().size(), 1u) << "the chain's inputs are dead and removed";
}

// Folding shares one budget per import (twice the initializers plus ir::kFoldAllowance): an
// Expand of one float to 36 MB took onnx_import_fuzzer past its timeout, and folds chained after
// one large constant could add up without bound.
TEST(Importer, FoldsThatOutgrowTheModelAreLeftToRunTime) {
  OnnxModelBuilder expand(13);
  expand.floatInit("v", {1}, {1.0f});
  expand.int64Init("s", {2}, {9, 1000128});
  expand.node("Expand", {"v", "s"}, {"c"}, "expand");
  expand.node("Relu", {"c"}, {"y"}, "relu");
  expand.output("y");
  auto g = importOnnx(expand.bytes());
  EXPECT_NO_THROW(ir::verifyGraph(*g));
  EXPECT_NE(findNode(*g, "expand"), nullptr);

  OnnxModelBuilder chain(13);
  chain.int64Init("s", {1}, {3000000});  // 12 MB of zeros: within the allowance
  chain.node("ConstantOfShape", {"s"}, {"c"}, "zeros");
  chain.node("Add", {"c", "c"}, {"d"}, "add");  // 12 MB more: beyond it
  chain.node("Relu", {"d"}, {"y"}, "relu");
  chain.output("y");
  g = importOnnx(chain.bytes());
  EXPECT_NO_THROW(ir::verifyGraph(*g));
  EXPECT_EQ(findNode(*g, "zeros"), nullptr);
  EXPECT_NE(findNode(*g, "add"), nullptr);
}

TEST(Importer, ComputedGraphOutputIsNotFolded) {
  OnnxModelBuilder b(13);
  b.input("x", {int64_t{2}, int64_t{7}});
  b.node("Shape", {"x"}, {"y"}, "shape");
  b.output("y", {int64_t{2}}, ::onnx::TensorProto::INT64);
  auto g = importOnnx(b.bytes());
  EXPECT_NO_THROW(ir::verifyGraph(*g));
  ASSERT_EQ(g->nodes().size(), 1u);
  EXPECT_EQ(g->outputs()[0]->producer, g->nodes()[0]);
  EXPECT_EQ(g->outputs()[0]->type.str(), "int64[2]");
}

TEST(Importer, OmittedOptionalInputsAndOutputs) {
  OnnxModelBuilder b(13);
  b.input("x", {int64_t{2}, int64_t{3}});
  b.node("Dropout", {"x", "", ""}, {"y", ""}, "drop");
  b.output("y");
  auto g = importOnnx(b.bytes());
  EXPECT_NO_THROW(ir::verifyGraph(*g));
  ASSERT_EQ(g->nodes().size(), 1u);
  const ir::Node* d = g->nodes()[0];
  EXPECT_EQ(d->inputs.size(), 1u);
  EXPECT_EQ(d->outputs.size(), 1u);
  EXPECT_EQ(d->outputs[0]->type.str(), "float32[2,3]");
}

// An omitted output in the middle gets a name no model value uses, even one defined later.
TEST(Importer, OmittedMiddleOutputGetsAFreshName) {
  OnnxModelBuilder b(13);
  b.input("x", {int64_t{2}, int64_t{3}});
  b.node("Dropout", {"x"}, {"", "mask"}, "drop");
  b.node("Relu", {"x"}, {"drop_unused_0"}, "relu");
  b.output("mask", {int64_t{2}, int64_t{3}}, ::onnx::TensorProto::BOOL);
  b.output("drop_unused_0");
  auto g = importOnnx(b.bytes());
  EXPECT_NO_THROW(ir::verifyGraph(*g));
  const ir::Node* drop = findNode(*g, "drop");
  ASSERT_NE(drop, nullptr);
  ASSERT_EQ(drop->outputs.size(), 2u);
  EXPECT_EQ(drop->outputs[0]->name, "drop_unused_0_1");
  EXPECT_EQ(drop->outputs[1]->name, "mask");
  EXPECT_EQ(drop->outputs[1]->type.str(), "bool[2,3]");
}

TEST(Importer, MultipleOutputsInModelOrder) {
  OnnxModelBuilder b(13);
  b.input("x", {int64_t{2}});
  b.node("Relu", {"x"}, {"a"}, "r");
  b.node("Neg", {"x"}, {"b"}, "n");
  b.output("b");
  b.output("a");
  auto g = importOnnx(b.bytes());
  EXPECT_NO_THROW(ir::verifyGraph(*g));
  ASSERT_EQ(g->outputs().size(), 2u);
  EXPECT_EQ(g->outputs()[0]->name, "b");
  EXPECT_EQ(g->outputs()[1]->name, "a");
}

TEST(Importer, SupportedOpsAreSortedAndPublic) {
  std::vector<std::string> ops = supportedOnnxOps();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  for (const auto& op : ops) EXPECT_EQ(op.find('.'), std::string::npos) << op;
  EXPECT_NE(std::find(ops.begin(), ops.end(), "Conv"), ops.end());
  EXPECT_NE(std::find(ops.begin(), ops.end(), "Constant"), ops.end());
}

}  // namespace
}  // namespace kiln::frontend::onnx
