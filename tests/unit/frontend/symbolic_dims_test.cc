// Inputs with bounded symbolic dims: declared dims named by --dim-bounds, and symbols given in
// --input-shapes, become the graph's symbols; what cannot be sized at run time is refused.
#include <gtest/gtest.h>

#include "kiln/frontend/onnx/importer.h"
#include "kiln/ir/parser.h"
#include "kiln/ir/printer.h"
#include "kiln/support/error.h"
#include "onnx_model_builder.h"

namespace kiln::frontend::onnx {
namespace {

using test::OnnxModelBuilder;

// ids[batch, seq] and mask[batch, seq] -> Add -> y: two inputs sharing their symbols.
OnnxModelBuilder twoInputs() {
  OnnxModelBuilder b;
  b.input("ids", {std::string("batch"), std::string("seq")});
  b.input("mask", {std::string("batch"), std::string("seq")});
  b.node("Add", {"ids", "mask"}, {"y"}, "add");
  b.output("y");
  return b;
}

std::string symbolicImportError(const std::vector<uint8_t>& bytes, const ImportOptions& opts) {
  try {
    importOnnx(bytes, opts, "m.onnx");
  } catch (const Error& e) {
    return e.what();
  }
  return "imported";
}

TEST(SymbolicDims, BoundedDeclaredDimsBecomeTheGraphsSymbols) {
  ImportOptions opts;
  opts.dimBounds = {{"batch", {1, 8}}, {"seq", {0, 1024}}};
  auto g = importOnnx(twoInputs().bytes(), opts);
  EXPECT_EQ(g->inputs()[0]->type.str(), "float32[batch,seq]");
  EXPECT_EQ(g->inputs()[1]->type.str(), "float32[batch,seq]");
  EXPECT_EQ(g->inputs()[0]->type.shape, (runtime::Shape{-1, -1}));
  EXPECT_EQ(g->inputs()[0]->type.dim(1), opdef::Dim::symbol("seq"));
  EXPECT_EQ(g->dimBounds, opts.dimBounds);
}

TEST(SymbolicDims, ASymbolInInputShapesNamesItsBound) {
  ImportOptions opts;
  opts.inputShapes["ids"] = {1, opdef::Dim::symbol("n")};
  opts.inputShapes["mask"] = {1, opdef::Dim::symbol("n")};
  std::string msg = symbolicImportError(twoInputs().bytes(), opts);
  EXPECT_NE(msg.find("input 'ids' dim 1 is symbol 'n', which has no bound; pass --dim-bounds "
                     "\"n<=MAX\""),
            std::string::npos)
      << msg;
  opts.dimBounds = {{"n", {0, 16}}};
  auto g = importOnnx(twoInputs().bytes(), opts);
  EXPECT_EQ(g->inputs()[0]->type.str(), "float32[1,n]");
  EXPECT_EQ(g->dimBounds, opts.dimBounds);
}

TEST(SymbolicDims, AnUnboundedDeclaredDimSuggestsBothOptions) {
  ImportOptions opts;
  opts.dimBounds = {{"batch", {1, 8}}};
  std::string msg = symbolicImportError(twoInputs().bytes(), opts);
  EXPECT_NE(msg.find("input 'ids' has symbolic dim 'seq' at axis 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("or bound it with --dim-bounds \"seq<=MAX\""), std::string::npos) << msg;
}

TEST(SymbolicDims, AnInputDimIsASizeOrOneSymbol) {
  ImportOptions opts;
  opts.dimBounds = {{"n", {0, 16}}};
  opts.inputShapes["ids"] = {1, opdef::Dim::symbol("n") * 2};
  std::string msg = symbolicImportError(twoInputs().bytes(), opts);
  EXPECT_NE(msg.find("gives input 'ids' dim 1 as '2*n'; an input's dim is a size or one symbol"),
            std::string::npos)
      << msg;
}

TEST(SymbolicDims, ASymbolCannotTakeADimTheModelFixes) {
  OnnxModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{3}});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  ImportOptions opts;
  opts.dimBounds = {{"n", {0, 16}}};
  opts.inputShapes["x"] = {opdef::Dim::symbol("n"), 3};
  std::string msg = symbolicImportError(b.bytes(), opts);
  EXPECT_NE(msg.find("the model fixes dim 0 to 2"), std::string::npos) << msg;
}

TEST(SymbolicDims, TheTextFormKeepsSymbolsAndBounds) {
  ImportOptions opts;
  opts.dimBounds = {{"batch", {1, 8}}, {"seq", {0, 1024}}};
  auto g = importOnnx(twoInputs().bytes(), opts);
  std::string text = ir::printGraph(*g);
  EXPECT_NE(text.find("dims \"1<=batch<=8, seq<=1024\""), std::string::npos) << text;
  auto parsed = ir::parseGraph(text);
  EXPECT_EQ(parsed->dimBounds, g->dimBounds);
  EXPECT_EQ(parsed->inputs()[1]->type, g->inputs()[1]->type);
  EXPECT_EQ(ir::printGraph(*parsed), text);
}

}  // namespace
}  // namespace kiln::frontend::onnx
