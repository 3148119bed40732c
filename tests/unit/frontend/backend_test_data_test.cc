// Imports models of the ONNX backend test suite and checks their types against the reference
// tensors shipped beside them, which the suite produced independently of kiln.
#include <gtest/gtest.h>

#include <filesystem>

#include "kiln/frontend/onnx/importer.h"
#include "kiln/frontend/onnx/tensor_proto.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"

namespace kiln::frontend::onnx {
namespace {

const char* const kDataRoot = "/usr/share/libonnx-testdata/data";

ir::TensorType typeOf(const runtime::NDArray& a) { return {a.dtype(), a.shape()}; }

class BackendTestData : public testing::TestWithParam<const char*> {};

TEST_P(BackendTestData, TypesMatchReferenceTensors) {
  std::string dir = std::string(kDataRoot) + "/" + GetParam();
  if (!isDirectory(dir)) GTEST_SKIP() << dir << " is not installed (package libonnx-testdata)";
  auto graph = importOnnx(dir + "/model.onnx");
  std::string data = dir + "/test_data_set_0";
  for (size_t i = 0; i < graph->inputs().size(); ++i) {
    auto [name, tensor] = loadNamedTensorProto(data + "/input_" + std::to_string(i) + ".pb");
    const ir::Value* input = graph->inputs()[i];
    EXPECT_EQ(input->type, typeOf(tensor)) << input->name << ": " << input->type.str();
    if (!name.empty()) {
      EXPECT_EQ(name, input->name);
    }
  }
  EXPECT_FALSE(fileExists(data + "/input_" + std::to_string(graph->inputs().size()) + ".pb"))
      << "the model has more inputs than kiln imported";
  for (size_t i = 0; i < graph->outputs().size(); ++i) {
    runtime::NDArray expected = loadTensorProto(data + "/output_" + std::to_string(i) + ".pb");
    EXPECT_EQ(graph->outputs()[i]->type, typeOf(expected)) << graph->outputs()[i]->name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Models, BackendTestData,
    testing::Values("node/test_conv_with_strides_padding", "node/test_relu",
                    "node/test_gemm_default_single_elem_vector_bias", "node/test_flatten_axis0",
                    "node/test_batchnorm_example", "node/test_shape", "node/test_add_bcast",
                    "node/test_maxpool_2d_pads", "node/test_softmax_axis_1",
                    "pytorch-converted/test_Conv2d", "node/test_gemm_all_attributes",
                    "node/test_matmul_2d", "node/test_transpose_default", "node/test_equal",
                    "node/test_cast_FLOAT_to_DOUBLE", "pytorch-converted/test_Conv2d_depthwise",
                    "simple/test_single_relu_model"),
    [](const testing::TestParamInfo<const char*>& info) {
      std::string name = info.param;
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

// Weights stored as initializers that are also graph inputs are parameters, not model inputs.
TEST(BackendTestDataWeights, InitializerInputsAreConstants) {
  std::string dir = std::string(kDataRoot) + "/pytorch-converted/test_Conv2d";
  if (!isDirectory(dir)) GTEST_SKIP() << dir << " is not installed";
  auto graph = importOnnx(dir + "/model.onnx");
  ASSERT_EQ(graph->inputs().size(), 1u);
  const ir::Value* w = graph->findValue("1");
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(w->isConstant());
  EXPECT_EQ(w->type.str(), "float32[4,3,3,2]");
}

// Opset-6 Gemm (with its `broadcast` attribute) predates the semantics kiln implements.
// An opset-6 export (Gemm with its old broadcast attribute) is read as opset 7.
TEST(BackendTestDataWeights, OldOpsetsAreReadAsOpset7) {
  std::string path = std::string(kDataRoot) + "/pytorch-converted/test_Linear/model.onnx";
  ASSERT_TRUE(fileExists(path)) << path << " is not installed (package libonnx-testdata)";
  auto graph = importOnnx(path);
  EXPECT_EQ(graph->opsetVersion, 7);
  bool gemm = false;
  for (const auto& n : graph->nodes()) {
    gemm = gemm || n->op == "Gemm";
    EXPECT_FALSE(n->attrs.has("broadcast")) << n->name;
  }
  EXPECT_TRUE(gemm);
}

}  // namespace
}  // namespace kiln::frontend::onnx
