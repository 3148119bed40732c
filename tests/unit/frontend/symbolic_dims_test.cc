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

// Hugging Face names an attention mask's length for the sizes it adds up:
// x[1, sequence_length], mask[1, "past_sequence_length + sequence_length"] (before the past, as
// Hugging Face orders them) and past[1, past_sequence_length] -> Concat(past, x) * mask.
OnnxModelBuilder maskedCache(const std::string& maskDim) {
  OnnxModelBuilder b;
  b.input("x", {int64_t{1}, std::string("sequence_length")});
  b.input("mask", {int64_t{1}, maskDim});
  b.input("past", {int64_t{1}, std::string("past_sequence_length")});
  test::addIntAttr(b.node("Concat", {"past", "x"}, {"all"}, "concat"), "axis", 1);
  b.node("Mul", {"all", "mask"}, {"y"}, "mul");
  b.output("y");
  return b;
}

TEST(SymbolicDims, ADimNamedForASumOfBoundedSymbolsIsThatSum) {
  ImportOptions opts;
  opts.dimBounds = {{"sequence_length", {1, 8}}, {"past_sequence_length", {0, 16}}};
  auto g = importOnnx(maskedCache("past_sequence_length + sequence_length").bytes(), opts);
  EXPECT_EQ(g->inputs()[1]->type.dim(1),
            opdef::Dim::symbol("past_sequence_length") + opdef::Dim::symbol("sequence_length"));
  EXPECT_EQ(g->dimBounds, opts.dimBounds);
  // The Concat's length and the mask's are the same size, so Mul takes them as they are.
  EXPECT_EQ(g->outputs()[0]->type.dim(1), g->inputs()[1]->type.dim(1));
}

TEST(SymbolicDims, ADerivedDimNeedsEachSymbolBoundAndSizedByAnInput) {
  ImportOptions opts;
  opts.dimBounds = {{"sequence_length", {1, 8}}};
  std::string msg = symbolicImportError(maskedCache("past_sequence_length + 1").bytes(), opts);
  EXPECT_NE(msg.find("input 'mask' has dim 1 = 'past_sequence_length + 1', a size of other "
                     "symbols; bound them with --dim-bounds \"past_sequence_length<=MAX\""),
            std::string::npos)
      << msg;
  opts.dimBounds = {
      {"sequence_length", {1, 8}}, {"past_sequence_length", {0, 16}}, {"extra", {0, 4}}};
  msg = symbolicImportError(maskedCache("past_sequence_length + extra").bytes(), opts);
  EXPECT_NE(msg.find("input 'mask' has dim 1 = extra+past_sequence_length, but no input has "
                     "'extra' as a dim of its own"),
            std::string::npos)
      << msg;
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
