// Lowerings of ops the IR registry does not define yet (ConvTranspose, LayerNormalization), checked
// through the loop IR interpreter on hand-typed graphs against naive loops.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "graph_runner.h"
#include "kiln/runtime/ndarray.h"

namespace kiln::kernel {

using namespace tir;  // NOLINT(google-build-using-namespace)
namespace {

using testing::expectNear;
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

// A 2-D ConvTranspose problem (a 1-D one has h = 1 and is built with rank-3 tensors).
struct Deconv {
  int64_t ic, oc, h, w, k, stride, pad, outPad;
  bool oneD = false;
  int64_t oh() const { return oneD ? 1 : (h - 1) * stride + k - 2 * pad + outPad; }
  int64_t ow() const { return (w - 1) * stride + k - 2 * pad + outPad; }
  int64_t kh() const { return oneD ? 1 : k; }
};

// The scatter definition: every input element adds its weighted window into the output.
Storage scatterReference(const Deconv& d, const Storage& xv, const Storage& wv, const Storage& bv) {
  int64_t oh = d.oh(), ow = d.ow(), kh = d.kh(), k = d.k;
  Storage want(static_cast<size_t>(d.oc * oh * ow), 0.0);
  for (int64_t o = 0; o < d.oc; ++o)
    for (int64_t i = 0; i < oh * ow; ++i) want[static_cast<size_t>(o * oh * ow + i)] = bv[o];
  int64_t ph = d.oneD ? 0 : d.pad;
  int64_t sh = d.oneD ? 1 : d.stride;
  for (int64_t c = 0; c < d.ic; ++c)
    for (int64_t y = 0; y < d.h; ++y)
      for (int64_t z = 0; z < d.w; ++z)
        for (int64_t o = 0; o < d.oc; ++o)
          for (int64_t u = 0; u < kh; ++u)
            for (int64_t v = 0; v < k; ++v) {
              int64_t r = y * sh - ph + u, q = z * d.stride - d.pad + v;
              if (r < 0 || r >= oh || q < 0 || q >= ow) continue;
              want[static_cast<size_t>((o * oh + r) * ow + q)] +=
                  xv[static_cast<size_t>((c * d.h + y) * d.w + z)] *
                  wv[static_cast<size_t>(((c * d.oc + o) * kh + u) * k + v)];
            }
  return want;
}

// Runs ConvTranspose D (with bias) through lowering and the interpreter, against the reference.
void checkDeconv(const Deconv& d, const std::map<std::string, int64_t>& knobs = {}) {
  auto shape = [&](int64_t a, int64_t b, int64_t h, int64_t w) {
    return d.oneD ? runtime::Shape{a, b, w} : runtime::Shape{a, b, h, w};
  };
  ir::Graph g;
  ir::Value* x = g.addInput("x", {DataType::float32(), shape(1, d.ic, d.h, d.w)});
  Storage wv = randomValues(static_cast<size_t>(d.ic * d.oc * d.kh() * d.k), 2);
  Storage bv = randomValues(static_cast<size_t>(d.oc), 3);
  ir::Value* wc = g.addConstant("w", floatArray(shape(d.ic, d.oc, d.k, d.k), wv));
  ir::Value* bc = g.addConstant("b", floatArray({d.oc}, bv));
  size_t nd = d.oneD ? 1 : 2;
  ir::Attrs attrs;
  attrs.set("strides", std::vector<int64_t>(nd, d.stride));
  attrs.set("pads", std::vector<int64_t>(2 * nd, d.pad));
  attrs.set("output_padding", std::vector<int64_t>(nd, d.outPad));
  ir::Node* n = g.addNode("ConvTranspose", "deconv", {x, wc, bc}, {"y"}, attrs);
  n->outputs[0]->type = {DataType::float32(), shape(1, d.oc, d.oh(), d.ow())};
  g.outputs().push_back(n->outputs[0]);
  Storage xv = randomValues(static_cast<size_t>(d.ic * d.h * d.w), 1);
  expectNear(testing::runGraph(g, {{"x", xv}}, {}, knobs)[0], scatterReference(d, xv, wv, bv));
}

TEST(LowerExtraOps, ConvTransposeMatchesScatterDefinition) {
  // x [1,4,5,6], w [4,3,3,3] (IC, OC/group, kh, kw), stride 2, pads 1, output_padding 1.
  checkDeconv({4, 3, 5, 6, 3, 2, 1, 1});
}

TEST(LowerExtraOps, ConvTransposeInColumnTiles) {
  // Ragged column tiles of 7 and 4 outputs, with stride, pads and output_padding.
  checkDeconv({4, 3, 5, 6, 3, 2, 1, 1}, {{"ow_tile", 7}});
  checkDeconv({2, 2, 3, 9, 3, 3, 2, 2}, {{"ow_tile", 4}});
}

TEST(LowerExtraOps, WideConvTransposeStaysOnTheStack) {
  // 79999 output columns: a whole row would need 312 KiB, so the kernel tiles the columns.
  checkDeconv({2, 3, 1, 40000, 3, 2, 1, 0, true});
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

// Gather and GatherElements with run-time indices: in range (negative ones count from the end)
// they read the right rows; out of range the kernel stops with KILN_STATUS_INDEX_OUT_OF_RANGE
// instead of clamping.
TEST(LowerExtraOps, OutOfRangeRuntimeIndicesStopTheKernel) {
  for (const char* op : {"Gather", "GatherElements"}) {
    bool elements = std::string(op) == "GatherElements";
    ir::Graph g;
    ir::Value* data = g.addInput("data", {DataType::float32(), {4, 3}});
    ir::Value* idx = g.addInput("idx", {DataType::int64(), elements ? std::vector<int64_t>{2, 3}
                                                                    : std::vector<int64_t>{2}});
    ir::Attrs attrs;
    attrs.set("axis", int64_t{0});
    ir::Node* n = g.addNode(op, "gather", {data, idx}, {"y"}, attrs);
    n->outputs[0]->type = {DataType::float32(), {2, 3}};
    g.outputs().push_back(n->outputs[0]);
    Storage d(12);
    for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<double>(i);
    Storage good = elements ? Storage{3, -4, 0, -1, 1, 2} : Storage{3, -4};
    Storage y = testing::runGraph(g, {{"data", d}, {"idx", good}})[0];
    Storage want = elements ? Storage{9, 1, 2, 9, 4, 8} : Storage{9, 10, 11, 0, 1, 2};
    EXPECT_EQ(y, want) << op;
    for (double bad : {4.0, -5.0, 1e9}) {
      Storage idxBad = good;
      idxBad[1] = bad;
      try {
        testing::runGraph(g, {{"data", d}, {"idx", idxBad}});
        ADD_FAILURE() << op << " accepted index " << bad;
      } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("returned status 2"), std::string::npos) << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace kiln::kernel
