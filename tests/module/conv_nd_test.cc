// Convolutions over three and four spatial dims: at opt level 0 the runtime's direct loops run
// them; from level 1 decompose-conv turns them into compiled 2-D convolutions. Both must agree.
#include <gtest/gtest.h>

#include "kiln/driver/compile.h"
#include "kiln/ir/parser.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

std::vector<float> runAtLevel(const char* model, int optLevel, const std::vector<float>& x,
                              const runtime::Shape& shape) {
  auto graph = ir::parseGraph(model);
  driver::CompileOptions options;
  options.optLevel = optLevel;
  std::string path = strCat(scratchDir(), "/o", optLevel, ".so");
  driver::compileGraph(*graph, path, options);
  runtime::Module ex = runtime::loadModule(path)["default"](runtime::Device::cpu()).asModule();
  ex["set_input"](0, toArray(x, shape));
  ex["run"]();
  return toVector(ex["get_output"](0).asNDArray());
}

void expectLevelsAgree(const char* model, const runtime::Shape& shape) {
  std::vector<float> x = randomVector(static_cast<size_t>(runtime::shapeNumel(shape)), 3);
  std::vector<float> direct = runAtLevel(model, 0, x, shape);
  std::vector<float> decomposed = runAtLevel(model, 3, x, shape);
  ASSERT_EQ(direct.size(), decomposed.size());
  EXPECT_LT(relativeError(decomposed, direct), 1e-5);
}

// Depth stride and padding, a bias, then a grouped conv with depth dilation and SAME padding.
TEST(ConvNd, ThreeSpatialDimsDecomposedAgreeWithTheDirectLoops) {
  expectLevelsAgree(R"(graph main(%x: float32[2,4,7,6,5]) {
    %w = const float32[8,4,3,3,3] random(seed=1)
    %b = const float32[8] random(seed=2)
    %y = Conv(%x, %w, %b) {kernel_shape=[3,3,3], pads=[1,1,1,1,1,1], strides=[2,1,1]}
    %r = Relu(%y)
    %w2 = const float32[6,4,3,1,2] random(seed=3)
    %z = Conv(%r, %w2) {kernel_shape=[3,1,2], group=2, dilations=[2,1,1], auto_pad="SAME_UPPER"}
    return %z
  })",
                    {2, 4, 7, 6, 5});
}

TEST(ConvNd, FourSpatialDimsDecomposeTwice) {
  expectLevelsAgree(R"(graph main(%x: float32[1,2,3,4,5,6]) {
    %w = const float32[3,2,2,2,3,3] random(seed=4)
    %y = Conv(%x, %w) {kernel_shape=[2,2,3,3], pads=[0,1,1,1,1,0,1,1]}
    return %y
  })",
                    {1, 2, 3, 4, 5, 6});
}

}  // namespace
}  // namespace kiln::test
