// Conv and pooling shape inference against the ONNX output-size formulas over many random
// configurations, plus the errors for invalid ones.
#include <random>

#include "ir_test_util.h"
#include "kiln/ir/window.h"

namespace kiln::ir {
namespace {

using testing::f32;
using testing::OneNode;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The spec's formulas, written independently of window.cc.
int64_t expectedSize(const std::string& autoPad, int64_t in, int64_t k, int64_t s, int64_t d,
                     int64_t pb, int64_t pe) {
  int64_t dk = (k - 1) * d + 1;
  if (autoPad == "VALID") return ceilDiv(in - dk + 1, s);
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") return ceilDiv(in, s);
  return (in + pb + pe - dk) / s + 1;
}

struct Config {
  int spatial;
  int64_t n, group, cPerGroup, mPerGroup;
  std::vector<int64_t> in, kernel, strides, dilations, pads;
  std::string autoPad;
};

Config randomConfig(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Config c;
  c.spatial = pick(1, 3);
  c.n = pick(1, 3);
  c.cPerGroup = pick(1, 4);
  c.mPerGroup = pick(1, 3);
  c.group = pick(0, 3) == 0 ? 1 : pick(1, 4);
  static const char* const kModes[] = {"NOTSET", "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"};
  c.autoPad = kModes[pick(0, 4)];
  for (int i = 0; i < c.spatial; ++i) {
    c.kernel.push_back(pick(1, 5));
    c.strides.push_back(pick(1, 3));
    c.dilations.push_back(pick(1, 3));
    c.in.push_back(pick(1, 20));
  }
  for (int i = 0; i < 2 * c.spatial; ++i) c.pads.push_back(c.autoPad == "NOTSET" ? pick(0, 3) : 0);
  return c;
}

TEST(ConvInferTest, RandomConfigsMatchFormula) {
  std::mt19937 rng(20240601);
  int checked = 0;
  int rejected = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    Config c = randomConfig(rng);
    Shape x = {c.n, c.cPerGroup * c.group};
    x.insert(x.end(), c.in.begin(), c.in.end());
    Shape w = {c.mPerGroup * c.group, c.cPerGroup};
    w.insert(w.end(), c.kernel.begin(), c.kernel.end());
    Attrs a = testing::attrs({{"group", c.group},
                              {"strides", c.strides},
                              {"dilations", c.dilations},
                              {"auto_pad", c.autoPad}});
    if (c.autoPad == "NOTSET") a.set("pads", c.pads);
    bool fits = true;
    Shape expected = {c.n, c.mPerGroup * c.group};
    for (int i = 0; i < c.spatial; ++i) {
      int64_t dk = (c.kernel[i] - 1) * c.dilations[i] + 1;
      bool same = c.autoPad.rfind("SAME", 0) == 0;
      if (!same && c.in[i] + c.pads[i] + c.pads[c.spatial + i] < dk) fits = false;
      expected.push_back(expectedSize(c.autoPad, c.in[i], c.kernel[i], c.strides[i], c.dilations[i],
                                      c.pads[i], c.pads[c.spatial + i]));
    }
    OneNode t;
    std::vector<Value*> inputs = {t.in(f32(x)), t.in(f32(w))};
    if (iter % 2) inputs.push_back(t.in(f32({c.mPerGroup * c.group})));
    if (!fits) {
      std::string e = t.error("Conv", inputs, a);
      EXPECT_NE(e.find("larger than the padded input"), std::string::npos) << e;
      ++rejected;
      continue;
    }
    EXPECT_EQ(t.infer("Conv", inputs, a), f32(expected))
        << "x=" << f32(x).str() << " w=" << f32(w).str() << " auto_pad=" << c.autoPad;
    ++checked;
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(rejected, 10);
}

TEST(ConvInferTest, SamePadsSplitUpperAndLower) {
  // in 7, k 4, s 2: out 4, total pad (4-1)*2+4-7 = 3.
  for (const char* mode : {"SAME_UPPER", "SAME_LOWER"}) {
    OneNode t;
    Node* n = t.add(
        "Conv", {t.in(f32({1, 1, 7})), t.in(f32({1, 1, 4}))},
        testing::attrs({{"auto_pad", std::string(mode)}, {"strides", std::vector<int64_t>{2}}}));
    WindowGeometry g = resolveWindow(*n, {7}, {4});
    EXPECT_EQ(g.output, (std::vector<int64_t>{4}));
    EXPECT_EQ(g.padsBegin[0] + g.padsEnd[0], 3);
    EXPECT_EQ(g.padsBegin[0], std::string(mode) == "SAME_UPPER" ? 1 : 2) << mode;
  }
}

TEST(ConvInferTest, Depthwise) {
  OneNode t;
  TensorType out =
      t.infer("Conv", {t.in(f32({1, 32, 10, 10})), t.in(f32({32, 1, 3, 3}))},
              testing::attrs({{"group", int64_t{32}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  EXPECT_EQ(out, f32({1, 32, 10, 10}));
}

TEST(ConvInferTest, ErrorsNameNodeAndValues) {
  OneNode t;
  std::string e = t.error("Conv", {t.in(f32({1, 3, 8, 8})), t.in(f32({4, 4, 3, 3}))});
  EXPECT_NE(e.find("Conv '"), std::string::npos) << e;
  EXPECT_NE(e.find("input channels 3 do not match weight channels 4 * group 1"), std::string::npos)
      << e;
  e = t.error("Conv", {t.in(f32({1, 4, 8, 8})), t.in(f32({6, 1, 3, 3}))},
              testing::attrs({{"group", int64_t{4}}}));
  EXPECT_NE(e.find("not divisible by group 4"), std::string::npos) << e;
  e = t.error("Conv", {t.in(f32({1, 3, 8, 8})), t.in(f32({4, 3, 3, 3}))},
              testing::attrs({{"kernel_shape", std::vector<int64_t>{5, 5}}}));
  EXPECT_NE(e.find("kernel_shape [5,5] does not match"), std::string::npos) << e;
  e = t.error("Conv", {t.in(f32({1, 3, 8, 8})), t.in(f32({4, 3, 3, 3})), t.in(f32({3}))});
  EXPECT_NE(e.find("bias B is float32[3]; expected [4]"), std::string::npos) << e;
  e = t.error("Conv", {t.in(f32({1, 3, 8, 8})), t.in(f32({4, 3, 3}))});
  EXPECT_NE(e.find("expected rank 4"), std::string::npos) << e;
  e = t.error("Conv", {t.in(f32({1, 3, 8, 8})), t.in(f32({4, 3, 3, 3}))},
              testing::attrs({{"pads", std::vector<int64_t>{1, 1}}}));
  EXPECT_NE(e.find("pads [1,1] has 2 values; expected 4"), std::string::npos) << e;
  e = t.error("Conv", {t.in(f32({1, 3, 8, 8})), t.in(f32({4, 3, 3, 3}))},
              testing::attrs({{"auto_pad", std::string("SAME")}}));
  EXPECT_NE(e.find("auto_pad \"SAME\" is not one of"), std::string::npos) << e;
  e = t.error("Conv", {t.in(f32({1, 3, 8, 8})), t.in(f32({4, 3, 3, 3}))},
              testing::attrs({{"strides", std::vector<int64_t>{0, 1}}}));
  EXPECT_NE(e.find("strides [0,1] has a value below 1"), std::string::npos) << e;
  e = t.error("Conv", {t.in(testing::i64({1, 3, 8, 8})), t.in(testing::i64({4, 3, 3, 3}))});
  EXPECT_NE(e.find("has type int64; expected float"), std::string::npos) << e;
  e = t.error("Conv", {t.in(f32({1, 3, 8, 8}))});
  EXPECT_NE(e.find("has 1 inputs; expected 2 to 3"), std::string::npos) << e;
}

// Output count by brute force: a window j exists when it starts inside input + begin padding and
// (floor mode) ends inside the padded input or (ceil mode) starts before the last stride step.
int64_t countWindows(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe,
                     bool ceil) {
  int64_t dk = (k - 1) * d + 1;
  int64_t count = 0;
  for (int64_t j = 0;; ++j) {
    int64_t start = j * s;
    bool fullyInside = start + dk <= in + pb + pe;
    bool ceilOk = ceil && start < in + pb && start <= in + pb + pe - dk + s - 1;
    if (!fullyInside && !ceilOk) break;
    ++count;
  }
  return count;
}

TEST(PoolInferTest, RandomConfigsMatchBruteForce) {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    int spatial = pick(1, 3);
    bool isMax = pick(0, 1) == 1;
    bool ceil = pick(0, 1) == 1;
    std::vector<int64_t> in, kernel, strides, dilations, pads(2 * static_cast<size_t>(spatial));
    for (int i = 0; i < spatial; ++i) {
      kernel.push_back(pick(1, 4));
      strides.push_back(pick(1, 3));
      dilations.push_back(isMax ? pick(1, 2) : 1);
      // ONNX requires pads smaller than the kernel.
      auto axis = static_cast<size_t>(i);
      pads[axis] = pick(0, static_cast<int>(kernel.back()) - 1);
      pads[static_cast<size_t>(spatial) + axis] = pick(0, static_cast<int>(kernel.back()) - 1);
      in.push_back(pick(static_cast<int>((kernel.back() - 1) * dilations.back() + 1), 16));
    }
    Shape x = {2, 3};
    x.insert(x.end(), in.begin(), in.end());
    Shape expected = {2, 3};
    for (int i = 0; i < spatial; ++i) {
      expected.push_back(countWindows(in[i], kernel[i], strides[i], dilations[i], pads[i],
                                      pads[spatial + i], ceil));
    }
    Attrs a = testing::attrs({{"kernel_shape", kernel},
                              {"strides", strides},
                              {"pads", pads},
                              {"ceil_mode", int64_t{ceil}}});
    if (isMax) a.set("dilations", dilations);
    OneNode t;
    EXPECT_EQ(t.infer(isMax ? "MaxPool" : "AveragePool", {t.in(f32(x))}, a), f32(expected))
        << f32(x).str() << " ceil=" << ceil;
    ++checked;
  }
  EXPECT_EQ(checked, 2000);
}

TEST(PoolInferTest, CeilModeDropsWindowStartingInPadding) {
  // in 6, k 2, s 2, pads 0+1: ceil((6+1-2)/2)+1 = 4, but the 4th window would start at 6, inside
  // the end padding: it is dropped (ONNX Runtime, PyTorch).
  OneNode t;
  Attrs a = testing::attrs({{"kernel_shape", std::vector<int64_t>{2}},
                            {"strides", std::vector<int64_t>{2}},
                            {"pads", std::vector<int64_t>{0, 1}},
                            {"ceil_mode", int64_t{1}}});
  EXPECT_EQ(t.infer("MaxPool", {t.in(f32({1, 1, 6}))}, a), f32({1, 1, 3}));
}

TEST(PoolInferTest, GlobalPools) {
  OneNode t;
  EXPECT_EQ(t.infer("GlobalAveragePool", {t.in(f32({2, 8, 7, 5}))}), f32({2, 8, 1, 1}));
  EXPECT_EQ(t.infer("GlobalMaxPool", {t.in(f32({2, 8, 7, 5, 3}))}), f32({2, 8, 1, 1, 1}));
  std::string e = t.error("GlobalAveragePool", {t.in(f32({2, 8}))});
  EXPECT_NE(e.find("expected rank >= 3"), std::string::npos) << e;
}

TEST(PoolInferTest, Errors) {
  OneNode t;
  std::string e = t.error("MaxPool", {t.in(f32({1, 1, 4, 4}))});
  EXPECT_NE(e.find("kernel_shape attribute is required"), std::string::npos) << e;
  Attrs k2 = testing::attrs({{"kernel_shape", std::vector<int64_t>{2, 2}}});
  // Indices (int64, the output's shape) and column-major indices: the runtime computes them.
  Node* withIndices = t.add("MaxPool", {t.in(f32({1, 1, 4, 4}))}, k2, 2);
  inferTypes(*withIndices);
  EXPECT_EQ(withIndices->outputs[1]->type, testing::i64({1, 1, 3, 3}));
  EXPECT_TRUE(runsInRuntime(*withIndices));
  Attrs order = k2;
  order.set("storage_order", int64_t{2});
  e = t.error("MaxPool", {t.in(f32({1, 1, 4, 4}))}, order);
  EXPECT_NE(e.find("storage_order 2; expected 0 or 1"), std::string::npos) << e;
  e = t.error("AveragePool", {t.in(f32({1, 1, 4}))}, k2);
  EXPECT_NE(e.find("kernel_shape [2,2] has 2 values; expected 1"), std::string::npos) << e;
  Attrs big = testing::attrs({{"kernel_shape", std::vector<int64_t>{5, 5}}});
  e = t.error("AveragePool", {t.in(f32({1, 1, 4, 4}))}, big);
  EXPECT_NE(e.find("window of size 5"), std::string::npos) << e;
}

}  // namespace
}  // namespace kiln::ir
