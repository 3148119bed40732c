// Attention as exporters write it, compiled: fuse-attention makes it one kiln.Attention kernel,
// whose outputs must match a double-precision reference for key lengths within one block of the
// running softmax and across several (ragged last block), bool masks with a fill (a row masked
// everywhere included) and additive float masks, grouped-query heads, and sizes in symbols; query
// lengths of a decode step (the row pass) and of prompts (tiles of rows, a ragged last tile).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kiln/driver/compile.h"
#include "kiln/ir/parser.h"
#include "kiln/runtime/artifact.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

using runtime::Module;
using runtime::NDArray;
using runtime::Shape;

struct Dims4 {
  int64_t b, h, n, d;
};

// softmax(Q Kᵀ · SCALE, masked) V in double; MASK as the model's mask input, broadcast over
// batch and heads ([1,1,S,L]); a bool mask (FILL set) keeps where nonzero, else adds.
std::vector<float> reference(const std::vector<float>& q, const std::vector<float>& k,
                             const std::vector<float>& v, const std::vector<float>& mask,
                             bool boolMask, double fill, Dims4 qd, Dims4 kd, int64_t dv,
                             double scale) {
  std::vector<float> out(static_cast<size_t>(qd.b * qd.h * qd.n * dv));
  int64_t groups = qd.h / kd.h;
  for (int64_t b = 0; b < qd.b; ++b) {
    for (int64_t h = 0; h < qd.h; ++h) {
      int64_t kh = b * kd.h + h / groups;
      for (int64_t i = 0; i < qd.n; ++i) {
        std::vector<double> s(static_cast<size_t>(kd.n));
        double mx = -INFINITY;
        for (int64_t j = 0; j < kd.n; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < qd.d; ++c) {
            dot +=
                double(q[((b * qd.h + h) * qd.n + i) * qd.d + c]) * k[(kh * kd.n + j) * kd.d + c];
          }
          double m = mask.empty() ? 0 : mask[i * kd.n + j];
          s[j] = boolMask ? (m != 0 ? dot * scale : fill) : dot * scale + m;
          mx = std::max(mx, s[j]);
        }
        double sum = 0;
        for (double& x : s) sum += (x = std::exp(x - mx));
        for (int64_t c = 0; c < dv; ++c) {
          double acc = 0;
          for (int64_t j = 0; j < kd.n; ++j) acc += s[j] * v[(kh * kd.n + j) * dv + c];
          out[((b * qd.h + h) * qd.n + i) * dv + c] = static_cast<float>(acc / sum);
        }
      }
    }
  }
  return out;
}

// The library compiled from TEXT into the test's folder, and the ops of its kernels, joined.
std::pair<Module, std::string> compileText(const std::string& text, const std::string& name) {
  std::unique_ptr<ir::Graph> g = ir::parseGraph(text);
  std::string path = scratchDir() + "/" + name + ".so";
  driver::compileGraph(*g, path, {});
  std::string ops;
  Json kernels = runtime::readArtifactFile(path).artifact.models.at(0).metadata.at("kernels");
  for (const Json& kernel : kernels.asArray()) ops += kernel.dump() + "\n";
  return {runtime::loadModule(path)["default"](runtime::Device::cpu()).asModule(), ops};
}

// GPT-2's spelling: scores / sqrt(d), a bool causal mask through Where, lengths in symbols.
constexpr const char* kGpt2 = R"(
graph main(%q: float32[1,3,seq,16], %k: float32[1,3,kv,16], %v: float32[1,3,kv,16], %m: bool[1,1,seq,kv]) dims "1<=kv<=160, 1<=seq<=40" {
  %sqrt_d = const float32[] [4.0]
  %fill = const float32[] [-10000.0]
  %kt = Transpose(%k) {perm=[0, 1, 3, 2]}
  %s = MatMul(%q, %kt)
  %scaled = Div(%s, %sqrt_d)
  %masked = Where(%m, %scaled, %fill)
  %p = Softmax(%masked) {axis=-1}
  %y = MatMul(%p, %v)
  return %y
})";

TEST(Attention, AMaskedAttentionOverSymbolicLengthsIsOneKernelAndMatches) {
  auto [ex, ops] = compileText(kGpt2, "gpt2_attention");
  EXPECT_NE(ops.find("kiln.Attention"), std::string::npos) << ops;
  EXPECT_EQ(ops.find("Softmax"), std::string::npos) << ops;
  std::mt19937 rng(5);
  for (auto [seq, kv] : std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {1, 64}, {5, 70}, {8, 160}, {33, 100}, {40, 40}}) {
    Dims4 qd{1, 3, seq, 16}, kd{1, 3, kv, 16};
    std::vector<float> q = randomVector(size_t(3 * seq * 16), 1),
                       k = randomVector(size_t(3 * kv * 16), 2),
                       v = randomVector(size_t(3 * kv * 16), 3);
    for (float& x : q) x *= 4;  // peaked rows: the running max moves between blocks
    std::vector<float> mask(size_t(seq * kv));
    std::vector<uint8_t> bytes(mask.size());
    for (int64_t i = 0; i < seq; ++i) {
      for (int64_t j = 0; j < kv; ++j) {
        bool keep = i != 2 && (j <= kv - seq + i) && rng() % 5 != 0;  // row 2: nothing kept
        mask[i * kv + j] = keep ? 1 : 0;
        bytes[i * kv + j] = keep ? 1 : 0;
      }
    }
    ex["set_input"]("q", toArray(q, {1, 3, seq, 16}));
    ex["set_input"]("k", toArray(k, {1, 3, kv, 16}));
    ex["set_input"]("v", toArray(v, {1, 3, kv, 16}));
    ex["set_input"]("m", NDArray::fromBytes({1, 1, seq, kv}, runtime::DataType::boolean(),
                                            bytes.data(), bytes.size()));
    ex["run"]();
    std::vector<float> want = reference(q, k, v, mask, true, -10000.0, qd, kd, 16, 0.25);
    EXPECT_LT(relativeError(toVector(ex["get_output"](0).asNDArray()), want), 1e-5)
        << "seq " << seq << ", kv " << kv;
  }
}

// A Llama block's spelling: 4 query heads over 2 key/value heads through repeat_kv, an additive
// mask, the scale on the query; value dim 24 differs from the key dim.
constexpr const char* kGqa = R"(
graph main(%q: float32[2,4,21,8], %k: float32[2,2,130,8], %v: float32[2,2,130,24], %mask: float32[1,1,21,130]) {
  %scale = const float32[] [0.35355339]
  %axis2 = const int64[1] [2]
  %expanded = const int64[5] [2, 2, 2, 130, 8]
  %expanded_v = const int64[5] [2, 2, 2, 130, 24]
  %heads = const int64[4] [2, 4, 130, 8]
  %heads_v = const int64[4] [2, 4, 130, 24]
  %ku = Unsqueeze(%k, %axis2)
  %ke = Expand(%ku, %expanded)
  %kk = Reshape(%ke, %heads)
  %vu = Unsqueeze(%v, %axis2)
  %ve = Expand(%vu, %expanded_v)
  %vv = Reshape(%ve, %heads_v)
  %qs = Mul(%q, %scale)
  %kt = Transpose(%kk) {perm=[0, 1, 3, 2]}
  %s = MatMul(%qs, %kt)
  %masked = Add(%s, %mask)
  %p = Softmax(%masked) {axis=-1}
  %y = MatMul(%p, %vv)
  return %y
})";

TEST(Attention, GroupedQueryHeadsReadTheirSharedHeadsInPlace) {
  auto [ex, ops] = compileText(kGqa, "gqa_attention");
  EXPECT_NE(ops.find("kiln.Attention"), std::string::npos) << ops;
  EXPECT_EQ(ops.find("Expand"), std::string::npos) << "the heads were copied:\n" << ops;
  constexpr size_t kQ = size_t{2} * 4 * 21 * 8, kK = size_t{2} * 2 * 130 * 8;
  constexpr size_t kV = size_t{2} * 2 * 130 * 24, kMask = size_t{21} * 130;
  std::vector<float> q = randomVector(kQ, 4), k = randomVector(kK, 5), v = randomVector(kV, 6),
                     mask = randomVector(kMask, 7);
  for (size_t i = 0; i < mask.size(); ++i) mask[i] = i % 7 == 0 ? -1e9F : mask[i];
  ex["set_input"]("q", toArray(q, {2, 4, 21, 8}));
  ex["set_input"]("k", toArray(k, {2, 2, 130, 8}));
  ex["set_input"]("v", toArray(v, {2, 2, 130, 24}));
  ex["set_input"]("mask", toArray(mask, {1, 1, 21, 130}));
  ex["run"]();
  std::vector<float> want =
      reference(q, k, v, mask, false, 0, {2, 4, 21, 8}, {2, 2, 130, 8}, 24, 0.35355339);
  EXPECT_LT(relativeError(toVector(ex["get_output"](0).asNDArray()), want), 1e-5);
}

}  // namespace
}  // namespace kiln::test
