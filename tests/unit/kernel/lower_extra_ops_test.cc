// Lowerings of ops the IR registry does not define yet (ConvTranspose, LayerNormalization), checked
// through the loop IR interpreter on hand-typed graphs against naive loops.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "graph_runner.h"
#include "kiln/runtime/ndarray.h"

namespace kiln::kernel {
namespace {

using testing::Storage;

Storage randomValues(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Storage s(n);
  for (double& v : s) v = dist(rng);
  return s;
}

runtime::NDArray floatArray(const runtime::Shape& shape, const Storage& values) {
  runtime::NDArray a = runtime::NDArray::empty(shape, DataType::float32());
  for (size_t i = 0; i < values.size(); ++i) a.data<float>()[i] = static_cast<float>(values[i]);
  return a;
}

void expectNear(const Storage& got, const Storage& want) {
  ASSERT_EQ(got.size(), want.size());
  double scale = 1e-6;
  for (double w : want) scale = std::max(scale, std::fabs(w));
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5 * scale) << i;
}

TEST(LowerExtraOps, ConvTransposeMatchesScatterDefinition) {
  // x [1,4,5,6], w [4,3,3,3] (IC, OC/group, kh, kw), stride 2, pads 1, output_padding 1.
  int64_t ic = 4, oc = 3, h = 5, w = 6, k = 3, s = 2, p = 1, op = 1;
  int64_t oh = (h - 1) * s + k - 2 * p + op, ow = (w - 1) * s + k - 2 * p + op;
  ir::Graph g;
  ir::Value* x = g.addInput("x", {DataType::float32(), {1, ic, h, w}});
  Storage wv = randomValues(static_cast<size_t>(ic * oc * k * k), 2);
  Storage bv = randomValues(static_cast<size_t>(oc), 3);
  ir::Value* wc = g.addConstant("w", floatArray({ic, oc, k, k}, wv));
  ir::Value* bc = g.addConstant("b", floatArray({oc}, bv));
  ir::Attrs attrs;
  attrs.set("strides", std::vector<int64_t>{s, s});
  attrs.set("pads", std::vector<int64_t>{p, p, p, p});
  attrs.set("output_padding", std::vector<int64_t>{op, op});
  ir::Node* n = g.addNode("ConvTranspose", "deconv", {x, wc, bc}, {"y"}, attrs);
  n->outputs[0]->type = {DataType::float32(), {1, oc, oh, ow}};
  g.outputs().push_back(n->outputs[0]);

  Storage xv = randomValues(static_cast<size_t>(ic * h * w), 1);
  Storage want(static_cast<size_t>(oc * oh * ow), 0.0);
  for (int64_t o = 0; o < oc; ++o)
    for (int64_t i = 0; i < oh * ow; ++i) want[static_cast<size_t>(o * oh * ow + i)] = bv[o];
  for (int64_t c = 0; c < ic; ++c)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t z = 0; z < w; ++z)
        for (int64_t o = 0; o < oc; ++o)
          for (int64_t u = 0; u < k; ++u)
            for (int64_t v = 0; v < k; ++v) {
              int64_t r = y * s - p + u, q = z * s - p + v;
              if (r < 0 || r >= oh || q < 0 || q >= ow) continue;
              want[static_cast<size_t>((o * oh + r) * ow + q)] +=
                  xv[static_cast<size_t>((c * h + y) * w + z)] *
                  wv[static_cast<size_t>(((c * oc + o) * k + u) * k + v)];
            }
  expectNear(testing::runGraph(g, {{"x", xv}})[0], want);
}

TEST(LowerExtraOps, LayerNormalizationOverLastAxis) {
  int64_t rows = 6, cols = 40;
  ir::Graph g;
  ir::Value* x = g.addInput("x", {DataType::float32(), {2, 3, cols}});
  Storage sv = randomValues(static_cast<size_t>(cols), 5),
          bv = randomValues(static_cast<size_t>(cols), 6);
  ir::Value* sc = g.addConstant("scale", floatArray({cols}, sv));
  ir::Value* bc = g.addConstant("bias", floatArray({cols}, bv));
  ir::Attrs attrs;
  attrs.set("epsilon", 1e-3);
  ir::Node* n = g.addNode("LayerNormalization", "ln", {x, sc, bc}, {"y"}, attrs);
  n->outputs[0]->type = {DataType::float32(), {2, 3, cols}};
  g.outputs().push_back(n->outputs[0]);

  Storage xv = randomValues(static_cast<size_t>(rows * cols), 4);
  Storage want(xv.size());
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int64_t c = 0; c < cols; ++c) mean += xv[static_cast<size_t>(r * cols + c)];
    mean /= static_cast<double>(cols);
    for (int64_t c = 0; c < cols; ++c) {
      double d = xv[static_cast<size_t>(r * cols + c)] - mean;
      var += d * d;
    }
    var /= static_cast<double>(cols);
    for (int64_t c = 0; c < cols; ++c) {
      auto i = static_cast<size_t>(r * cols + c);
      want[i] = (xv[i] - mean) / std::sqrt(var + 1e-3) * sv[static_cast<size_t>(c)] +
                bv[static_cast<size_t>(c)];
    }
  }
  expectNear(testing::runGraph(g, {{"x", xv}})[0], want);
}

}  // namespace
}  // namespace kiln::kernel
