// fold-batch-norm checked numerically: the folded conv (or Mul + Add) must compute what the
// original conv followed by batch norm computes, on random data.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/ir/parser.h"
#include "kiln/ir/random_tensor.h"
#include "kiln/transform/passes.h"

namespace kiln::transform {
namespace {

using runtime::NDArray;

struct ConvParams {
  int64_t group = 1, stride = 1, pad = 0;
};

// Reference NCHW convolution (square stride and pad), straight from the definition.
std::vector<double> conv2d(const NDArray& x, const NDArray& w, const NDArray* b, ConvParams p) {
  int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], wd = x.shape()[3];
  int64_t oc = w.shape()[0], icg = w.shape()[1], kh = w.shape()[2], kw = w.shape()[3];
  int64_t oh = (h + 2 * p.pad - kh) / p.stride + 1, ow = (wd + 2 * p.pad - kw) / p.stride + 1;
  int64_t ocg = oc / p.group;
  EXPECT_EQ(icg * p.group, c);
  std::vector<double> y(static_cast<size_t>(n * oc * oh * ow));
  const float* xs = x.data<float>();
  const float* ws = w.data<float>();
  for (int64_t in = 0; in < n; ++in)
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = b ? b->data<float>()[o] : 0.0;
          int64_t g = o / ocg;
          for (int64_t ci = 0; ci < icg; ++ci)
            for (int64_t a = 0; a < kh; ++a)
              for (int64_t bb = 0; bb < kw; ++bb) {
                int64_t yy = i * p.stride - p.pad + a, xx = j * p.stride - p.pad + bb;
                if (yy < 0 || yy >= h || xx < 0 || xx >= wd) continue;
                int64_t cin = g * icg + ci;
                acc += static_cast<double>(xs[((in * c + cin) * h + yy) * wd + xx]) *
                       ws[((o * icg + ci) * kh + a) * kw + bb];
              }
          y[static_cast<size_t>(((in * oc + o) * oh + i) * ow + j)] = acc;
        }
  return y;
}

// Applies inference batch norm over axis 1 of a tensor of SHAPE held in Y.
void batchNorm(std::vector<double>& y, const runtime::Shape& shape, const ir::Node& bn) {
  auto at = [&](int i, int64_t ch) { return bn.inputs[i]->constant->data<float>()[ch]; };
  double eps = bn.attrs.getFloat("epsilon", 1e-5);
  int64_t channels = shape[1];
  int64_t inner = runtime::shapeNumel(shape) / shape[0] / channels;
  for (size_t k = 0; k < y.size(); ++k) {
    int64_t ch = static_cast<int64_t>(k) / inner % channels;
    y[k] = (y[k] - at(3, ch)) / std::sqrt(at(4, ch) + eps) * at(1, ch) + at(2, ch);
  }
}

const ir::Node* onlyNode(const ir::Graph& g, const std::string& op) {
  const ir::Node* found = nullptr;
  for (const ir::Node* n : g.nodes()) {
    if (n->op == op) {
      EXPECT_EQ(found, nullptr) << "more than one " << op;
      found = n;
    }
  }
  return found;
}

void expectClose(const std::vector<double>& want, const std::vector<double>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(want[i], got[i], 1e-4 * (1 + std::abs(want[i]))) << "element " << i;
  }
}

void checkConvFold(const std::string& text, ConvParams p) {
  auto g = ir::parseGraph(text);
  NDArray x = ir::randomTensor(g->inputs()[0]->type, 99);
  const ir::Node* conv = onlyNode(*g, "Conv");
  const ir::Node* bn = onlyNode(*g, "BatchNormalization");
  ASSERT_TRUE(conv && bn);
  const NDArray* bias = conv->inputs.size() > 2 ? &*conv->inputs[2]->constant : nullptr;
  std::vector<double> want = conv2d(x, *conv->inputs[1]->constant, bias, p);
  batchNorm(want, conv->outputs[0]->type.shape, *bn);

  foldBatchNorm(*g);
  EXPECT_EQ(onlyNode(*g, "BatchNormalization"), nullptr);
  const ir::Node* folded = onlyNode(*g, "Conv");
  ASSERT_NE(folded, nullptr);
  ASSERT_EQ(folded->inputs.size(), 3u);
  std::vector<double> got =
      conv2d(x, *folded->inputs[1]->constant, &*folded->inputs[2]->constant, p);
  expectClose(want, got);
  EXPECT_TRUE(g->isGraphOutput(folded->outputs[0]) || !g->users(folded->outputs[0]).empty());
}

TEST(FoldBatchNormNumeric, ConvWithBias) {
  checkConvFold(R"(
    graph main(%x: float32[2,3,6,5]) {
      %w = const float32[4,3,3,3] random(seed=1)
      %b = const float32[4] random(seed=2)
      %scale = const float32[4] random(seed=3, low=0.5, high=2.0)
      %shift = const float32[4] random(seed=4)
      %mean = const float32[4] random(seed=5)
      %var = const float32[4] random(seed=6, low=0.1, high=3.0)
      %c = Conv(%x, %w, %b) {kernel_shape=[3,3], pads=[1,1,1,1], strides=[2,2]}
      %y = BatchNormalization(%c, %scale, %shift, %mean, %var) {epsilon=0.001}
      return %y
    })",
                {1, 2, 1});
}

TEST(FoldBatchNormNumeric, DepthwiseConvWithoutBias) {
  checkConvFold(R"(
    graph main(%x: float32[1,6,4,4]) {
      %w = const float32[6,1,3,3] random(seed=11)
      %scale = const float32[6] random(seed=13, low=0.5, high=2.0)
      %shift = const float32[6] random(seed=14)
      %mean = const float32[6] random(seed=15)
      %var = const float32[6] random(seed=16, low=0.1, high=3.0)
      %c = Conv(%x, %w) {group=6, kernel_shape=[3,3]}
      %y = BatchNormalization(%c, %scale, %shift, %mean, %var)
      %r = Relu(%y)
      return %r
    })",
                {6, 1, 0});
}

TEST(FoldBatchNormNumeric, StandaloneBecomesMulAdd) {
  auto g = ir::parseGraph(R"(
    graph main(%x: float32[2,3,4]) {
      %scale = const float32[3] random(seed=23, low=0.5, high=2.0)
      %shift = const float32[3] random(seed=24)
      %mean = const float32[3] random(seed=25)
      %var = const float32[3] random(seed=26, low=0.1, high=3.0)
      %y = BatchNormalization(%x, %scale, %shift, %mean, %var) {epsilon=0.01}
      return %y
    })");
  NDArray x = ir::randomTensor(g->inputs()[0]->type, 5);
  std::vector<double> want(x.data<float>(), x.data<float>() + x.numel());
  batchNorm(want, x.shape(), *onlyNode(*g, "BatchNormalization"));

  foldBatchNorm(*g);
  const ir::Node* mul = onlyNode(*g, "Mul");
  const ir::Node* add = onlyNode(*g, "Add");
  ASSERT_TRUE(mul && add);
  EXPECT_EQ(g->outputs()[0], add->outputs[0]);
  EXPECT_EQ(g->outputs()[0]->name, "y");
  const NDArray& s = *mul->inputs[1]->constant;
  const NDArray& t = *add->inputs[1]->constant;
  EXPECT_EQ(s.shape(), (runtime::Shape{3, 1}));
  std::vector<double> got(want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    int64_t ch = static_cast<int64_t>(k) / 4 % 3;
    got[k] = static_cast<double>(x.data<float>()[k]) * s.data<float>()[ch] + t.data<float>()[ch];
  }
  expectClose(want, got);
}

TEST(FoldBatchNormNumeric, NonConstantStatisticsAreLeftAlone) {
  auto g = ir::parseGraph(R"(
    graph main(%x: float32[1,2,2], %mean: float32[2]) {
      %scale = const float32[2] [1.0, 1.0]
      %shift = const float32[2] [0.0, 0.0]
      %var = const float32[2] [1.0, 1.0]
      %y = BatchNormalization(%x, %scale, %shift, %mean, %var)
      return %y
    })");
  foldBatchNorm(*g);
  EXPECT_NE(onlyNode(*g, "BatchNormalization"), nullptr);
}

}  // namespace
}  // namespace kiln::transform
