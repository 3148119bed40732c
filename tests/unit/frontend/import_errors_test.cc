// Every way a model can be rejected at import, checked for a kiln::Error with a useful message.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <random>
#include <typeinfo>

#include "kiln/frontend/onnx/importer.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "onnx_model_builder.h"

namespace kiln::frontend::onnx {
namespace {

using test::OnnxModelBuilder;

// The message of the kiln::Error FN throws; fails the test when it throws nothing or another type.
std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected kiln::Error, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected kiln::Error, nothing was thrown";
  return "";
}

std::string importError(const std::vector<uint8_t>& bytes, const ImportOptions& opts = {}) {
  return errorOf([&] { importOnnx(bytes, opts, "m.onnx"); });
}

// x -> Conv(W, B) -> Relu -> y: small, but with initializers, attributes and two nodes.
OnnxModelBuilder convModel() {
  OnnxModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{4}});
  b.floatInit("W", {3, 2, 1, 1}, {1, 2, 3, 4, 5, 6});
  b.floatInit("B", {3}, {0.5f, -0.5f, 1});
  auto* conv = b.node("Conv", {"x", "W", "B"}, {"c"}, "conv");
  test::addIntsAttr(conv, "kernel_shape", {1, 1});
  b.node("Relu", {"c"}, {"y"}, "relu");
  b.output("y");
  return b;
}

TEST(ImportErrors, ValidModelImports) {
  auto graph = importOnnx(convModel().bytes());
  ASSERT_EQ(graph->outputs().size(), 1u);
  EXPECT_EQ(graph->outputs()[0]->type.str(), "float32[1,3,4,4]");
}

TEST(ImportErrors, MissingFileNamesThePath) {
  std::string msg = errorOf([] { importOnnx("/nonexistent/dir/m.onnx"); });
  EXPECT_NE(msg.find("/nonexistent/dir/m.onnx"), std::string::npos) << msg;
}

TEST(ImportErrors, GarbageBytesAreNotAModel) {
  std::string text = "this is certainly not a protobuf \xff\xff\xff\xff";
  std::string msg = importError({text.begin(), text.end()});
  EXPECT_EQ(msg.rfind("'m.onnx' is not a valid ONNX model: ", 0), 0u) << msg;
}

TEST(ImportErrors, EmptyFileIsNotAModel) {
  std::string msg = importError({});
  EXPECT_EQ(msg.rfind("'m.onnx' is not a valid ONNX model: ", 0), 0u) << msg;
}

// Protobuf accepts prefixes that end on a field boundary, so every prefix must still be caught
// by validation; none may import or crash.
TEST(ImportErrors, EveryTruncationIsRejected) {
  std::vector<uint8_t> full = convModel().bytes();
  ASSERT_GT(full.size(), 50u);
  for (size_t len = 0; len < full.size(); ++len) {
    std::vector<uint8_t> prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(len));
    std::string msg = importError(prefix);
    EXPECT_EQ(msg.rfind("'m.onnx' is not a valid ONNX model: ", 0), 0u)
        << "prefix of " << len << " bytes: " << msg;
  }
}

// Random byte flips: each import either succeeds or throws kiln::Error; nothing else escapes.
TEST(ImportErrors, CorruptedBytesNeverCrash) {
  std::vector<uint8_t> full = convModel().bytes();
  std::mt19937 rng(7);
  int rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint8_t> bytes = full;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
    try {
      importOnnx(bytes, {}, "fuzz.onnx");
    } catch (const Error&) {
      ++rejected;
    } catch (const std::exception& e) {
      FAIL() << "trial " << trial << ": " << typeid(e).name() << ": " << e.what();
    }
  }
  EXPECT_GT(rejected, 100);
}

TEST(ImportErrors, TruncatedFileNamesThePath) {
  std::vector<uint8_t> full = convModel().bytes();
  std::string path = std::filesystem::temp_directory_path() / "kiln_truncated_model.onnx";
  writeFileAtomic(path, full.data(), full.size() / 2);
  std::string msg = errorOf([&] { importOnnx(path); });
  std::remove(path.c_str());
  EXPECT_EQ(msg.rfind("'" + path + "' is not a valid ONNX model: ", 0), 0u) << msg;
}

TEST(ImportErrors, MissingGraph) {
  OnnxModelBuilder b = convModel();
  b.model().clear_graph();
  EXPECT_NE(importError(b.bytes()).find("has no graph"), std::string::npos);
}

TEST(ImportErrors, MissingOpsetImport) {
  OnnxModelBuilder b = convModel();
  b.model().clear_opset_import();
  EXPECT_NE(importError(b.bytes()).find("no opset import"), std::string::npos);
}

TEST(ImportErrors, UndefinedNodeInput) {
  OnnxModelBuilder b = convModel();
  b.graph().mutable_node(1)->set_input(0, "nowhere");
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("not a valid ONNX model"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'nowhere'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'relu'"), std::string::npos) << msg;
}

TEST(ImportErrors, UndefinedGraphOutput) {
  OnnxModelBuilder b = convModel();
  b.output("ghost");
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("graph output 'ghost'"), std::string::npos) << msg;
}

TEST(ImportErrors, DuplicateGraphOutputNamesAreRejected) {
  OnnxModelBuilder b = convModel();
  b.output("y");  // listed a second time
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("graph output 'y' is listed twice"), std::string::npos) << msg;
}

TEST(ImportErrors, OpsetNewerThanKilnKnowsIsRejected) {
  OnnxModelBuilder b(99);
  b.input("x", {int64_t{2}, int64_t{4}});
  b.node("Relu", {"x"}, {"y"}, "relu");
  b.output("y");
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("uses opset 99 of the default ONNX domain"), std::string::npos) << msg;
  EXPECT_NE(msg.find("knows opsets 1 to "), std::string::npos) << msg;
}

TEST(ImportErrors, NegativeDeclaredDimIsNamedAsSuch) {
  OnnxModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{-3}});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("input 'x' declares dim 1 as -3"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("unknown"), std::string::npos) << msg;
}

TEST(ImportErrors, UnsupportedDomain) {
  OnnxModelBuilder b = convModel();
  auto* op = b.model().add_opset_import();
  op->set_domain("com.microsoft");
  op->set_version(1);
  b.graph().mutable_node(1)->set_domain("com.microsoft");
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("'com.microsoft'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'relu'"), std::string::npos) << msg;
}

TEST(ImportErrors, UnusedForeignDomainImportIsFine) {
  OnnxModelBuilder b = convModel();
  auto* op = b.model().add_opset_import();
  op->set_domain("ai.onnx.ml");
  op->set_version(2);
  EXPECT_NO_THROW(importOnnx(b.bytes()));
}

TEST(ImportErrors, UnsupportedOpNamesNodeOpAndOpset) {
  // Random numbers: kiln compiles deterministic models only.
  OnnxModelBuilder b(13);
  b.input("x", {int64_t{1}, int64_t{4}});
  b.node("RandomUniformLike", {"x"}, {"r"}, "foo");
  b.output("r");
  std::string msg = importError(b.bytes());
  EXPECT_EQ(msg.rfind("node 'foo' (op 'RandomUniformLike', opset 13) is not supported by kiln; "
                      "supported ops: ",
                      0),
            0u)
      << msg;
  EXPECT_NE(msg.find("Conv"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Relu"), std::string::npos) << msg;
}

TEST(ImportErrors, UnsupportedUnnamedOpGetsGeneratedName) {
  OnnxModelBuilder b(11);
  b.input("x", {int64_t{4}});
  b.node("Relu", {"x"}, {"r"}, "");
  b.node("NotARealOp", {"r"}, {"y"}, "");
  b.output("y");
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("node 'NotARealOp_0' (op 'NotARealOp', opset 11)"), std::string::npos) << msg;
}

// An op the model's opset does not define yet (Einsum came in opset 12).
TEST(ImportErrors, OpsetOlderThanKilnImplements) {
  OnnxModelBuilder b(10);
  b.input("x", {int64_t{2}, int64_t{4}});
  ::onnx::NodeProto* n = b.node("Einsum", {"x"}, {"y"}, "sum");
  ::onnx::AttributeProto* eq = n->add_attribute();
  eq->set_name("equation");
  eq->set_type(::onnx::AttributeProto::STRING);
  eq->set_s("ij->i");
  b.output("y");
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("node 'sum' (op 'Einsum', opset 10) is not supported by kiln: kiln "
                     "implements 'Einsum' as defined from opset 12 on"),
            std::string::npos)
      << msg;
}

OnnxModelBuilder symbolicModel() {
  OnnxModelBuilder b;
  b.input("x", {std::string("batch"), int64_t{3}, std::string("h"), int64_t{4}});
  b.node("Relu", {"x"}, {"y"}, "relu");
  b.output("y");
  return b;
}

TEST(ImportErrors, SymbolicDimWithoutShapeOption) {
  std::string msg = importError(symbolicModel().bytes());
  EXPECT_NE(msg.find("input 'x' has symbolic dim 'batch' at axis 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("pass --input-shapes x:[...]"), std::string::npos) << msg;
}

// An input only a control-flow body reads is named with the body and the node that holds it.
TEST(ImportErrors, TheReaderOfAnInputMayBeABody) {
  OnnxModelBuilder b;
  b.input("c", {}, ::onnx::TensorProto::BOOL);
  b.input("x", {std::string("n"), int64_t{3}});
  ::onnx::NodeProto* node = b.node("If", {"c"}, {"y"}, "choose");
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = node->add_attribute();
    a->set_name(branch);
    a->set_type(::onnx::AttributeProto::GRAPH);
    ::onnx::GraphProto* g = a->mutable_g();
    ::onnx::NodeProto* id = g->add_node();
    id->set_op_type("Identity");
    id->add_input("x");
    id->add_output(std::string(branch) + "_out");
    g->add_output()->set_name(std::string(branch) + "_out");
  }
  b.output("y");
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("input 'x' has symbolic dim 'n'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("it is read in body 'then_branch' of node 'choose' (op 'If'"),
            std::string::npos)
      << msg;
}

TEST(ImportErrors, AnUnreadInputIsNamedAsUnread) {
  OnnxModelBuilder b;
  b.input("x", {int64_t{2}});
  b.input("unused", {std::string("n")});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("input 'unused' has symbolic dim 'n'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("; no node reads it"), std::string::npos) << msg;
}

TEST(ImportErrors, SymbolicDimWithShapeOption) {
  ImportOptions opts;
  opts.inputShapes["x"] = {2, 3, 5, 4};
  auto graph = importOnnx(symbolicModel().bytes(), opts);
  ASSERT_EQ(graph->inputs().size(), 1u);
  EXPECT_EQ(graph->inputs()[0]->type.str(), "float32[2,3,5,4]");
  EXPECT_EQ(graph->outputs()[0]->type.str(), "float32[2,3,5,4]");
}

TEST(ImportErrors, UnknownDimWithoutShapeOption) {
  OnnxModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{3}});
  b.graph()
      .mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->clear_dim_value();
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("input 'x' has an unknown dim at axis 1"), std::string::npos) << msg;
}

TEST(ImportErrors, ShapeOptionForUnknownInput) {
  ImportOptions opts;
  opts.inputShapes["x"] = {2, 3, 5, 4};
  opts.inputShapes["z"] = {1};
  std::string msg = importError(symbolicModel().bytes(), opts);
  EXPECT_NE(msg.find("'z'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("its inputs are: x"), std::string::npos) << msg;
}

TEST(ImportErrors, ShapeOptionContradictsFixedDim) {
  ImportOptions opts;
  opts.inputShapes["x"] = {2, 5, 5, 4};
  std::string msg = importError(symbolicModel().bytes(), opts);
  EXPECT_NE(msg.find("fixes dim 1 to 3"), std::string::npos) << msg;
}

TEST(ImportErrors, ShapeOptionWithWrongRank) {
  ImportOptions opts;
  opts.inputShapes["x"] = {2, 3, 5};
  std::string msg = importError(symbolicModel().bytes(), opts);
  EXPECT_NE(msg.find("rank 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank 4"), std::string::npos) << msg;
}

TEST(ImportErrors, UnsupportedInputDataType) {
  OnnxModelBuilder b;
  b.input("s", {int64_t{2}}, ::onnx::TensorProto::COMPLEX64);
  b.node("Identity", {"s"}, {"y"});
  b.output("y");
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("input 's'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("COMPLEX64"), std::string::npos) << msg;
}

TEST(ImportErrors, UnsupportedInitializerDataType) {
  OnnxModelBuilder b = convModel();
  b.graph().mutable_initializer(1)->set_data_type(::onnx::TensorProto::COMPLEX64);
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("initializer 'B'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("COMPLEX64"), std::string::npos) << msg;
}

TEST(ImportErrors, ExternalDataIsRejected) {
  OnnxModelBuilder b = convModel();
  auto* w = b.graph().mutable_initializer(0);
  w->clear_float_data();
  w->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto* kv = w->add_external_data();
  kv->set_key("location");
  kv->set_value("weights.bin");
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("initializer 'W'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("weights.bin"), std::string::npos) << msg;
}

TEST(ImportErrors, InitializerWithWrongElementCount) {
  OnnxModelBuilder b = convModel();
  b.graph().mutable_initializer(1)->add_float_data(9);
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("initializer 'B' has 4 values in float_data"), std::string::npos) << msg;
}

TEST(ImportErrors, GraphAttributeIsRejected) {
  OnnxModelBuilder b = convModel();
  auto* a = b.graph().mutable_node(1)->add_attribute();
  a->set_name("body");
  a->set_type(::onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name("sub");
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("attribute 'body'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("GRAPH"), std::string::npos) << msg;
}

TEST(ImportErrors, ShapeInferenceErrorsAreKilnErrors) {
  OnnxModelBuilder b;
  b.input("a", {int64_t{2}, int64_t{3}});
  b.input("c", {int64_t{4}, int64_t{5}});
  b.node("MatMul", {"a", "c"}, {"y"}, "mm");
  b.output("y");
  std::string msg = importError(b.bytes());
  EXPECT_NE(msg.find("mm"), std::string::npos) << msg;
}

}  // namespace
}  // namespace kiln::frontend::onnx
