// The generation loop's parts that need no model: reading a decoder's roles from its inputs and
// outputs, and the sampler's picks (src/runtime/generate).
#include "kiln/runtime/generate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "kiln/support/error.h"

namespace kiln::runtime {
namespace {

Json entry(const std::string& name, const std::string& dtype, const std::vector<int64_t>& shape,
           const std::vector<int64_t>& maxShape = {}) {
  Json e;
  e["name"] = name;
  e["dtype"] = dtype;
  Json dims = Json::Array{};
  for (int64_t d : shape) dims.push(Json(d));
  e["shape"] = std::move(dims);
  if (!maxShape.empty()) {
    Json bound = Json::Array{};
    for (int64_t d : maxShape) bound.push(Json(d));
    e["max_shape"] = std::move(bound);
  }
  return e;
}

Json list(std::vector<Json> entries) { return Json(Json::Array(std::move(entries))); }

// Hugging Face's names: input_ids, attention_mask, position_ids, past_key_values.N.key/value.
TEST(DecoderInterface, ReadsHuggingFaceNames) {
  Json in = list({entry("input_ids", "int64", {1, -1}, {1, 16}),
                  entry("attention_mask", "int64", {1, -1}, {1, 48}),
                  entry("position_ids", "int64", {1, -1}, {1, 16}),
                  entry("past_key_values.0.key", "float32", {1, 4, -1, 8}, {1, 4, 32, 8}),
                  entry("past_key_values.0.value", "float32", {1, 4, -1, 8}, {1, 4, 32, 8})});
  Json out = list({entry("present.0.value", "float32", {1, 4, -1, 8}),
                   entry("logits", "float32", {1, -1, 100}),
                   entry("present.0.key", "float32", {1, 4, -1, 8})});
  DecoderInterface d = findDecoderInterface(in, out);
  EXPECT_EQ(d.tokens, 0);
  EXPECT_EQ(d.attentionMask, 1);
  EXPECT_EQ(d.positionIds, 2);
  EXPECT_EQ(d.logits, 1);
  EXPECT_EQ(d.maxSequence, 16);
  ASSERT_EQ(d.cache.size(), 2U);
  EXPECT_EQ(d.cache[0].output, 2);  // present.0.key, wherever it is among the outputs
  EXPECT_EQ(d.cache[1].output, 0);
  EXPECT_EQ(d.cache[0].axis, 2);
  EXPECT_EQ(d.cache[0].capacity, 32);
  EXPECT_EQ(d.cache[0].emptyShape, (Shape{1, 4, 0, 8}));
}

// Other exporters: past_key_0 / present_key_0, a free batch, the token input found by its type.
TEST(DecoderInterface, ReadsPastAndPresentSpellingsAndAFreeBatch) {
  Json in =
      list({entry("tokens", "int32", {-1, -1}), entry("past_key_0", "float32", {-1, 2, -1, 8}),
            entry("past_value_0", "float32", {-1, 2, -1, 8})});
  Json out =
      list({entry("out", "float32", {-1, 50}), entry("present_key_0", "float32", {-1, 2, -1, 8}),
            entry("present_value_0", "float32", {-1, 2, -1, 8})});
  DecoderInterface d = findDecoderInterface(in, out);
  EXPECT_EQ(d.tokens, 0);
  EXPECT_EQ(d.tokenType, DataType::int32());
  EXPECT_EQ(d.logits, 0);  // no output named logits: the first
  ASSERT_EQ(d.cache.size(), 2U);
  EXPECT_EQ(d.cache[1].outputName, "present_value_0");
  EXPECT_EQ(d.cache[0].emptyShape, (Shape{1, 2, 0, 8}));
  EXPECT_EQ(d.cache[0].capacity, -1);
}

std::string errorOf(const Json& in, const Json& out) {
  try {
    findDecoderInterface(in, out);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(DecoderInterface, SaysWhatIsMissingOrUnexpected) {
  Json logits = list(
      {entry("logits", "float32", {1, -1, 10}), entry("present.0.key", "float32", {1, 2, -1, 4})});
  Json ids = entry("input_ids", "int64", {1, -1});
  EXPECT_NE(errorOf(list({ids, entry("past_key_values.0.value", "float32", {1, 2, -1, 4})}), logits)
                .find("cache input 'past_key_values.0.value' has no matching output (expected "
                      "'present.0.value'"),
            std::string::npos);
  EXPECT_NE(errorOf(list({ids, entry("past_key_values.0.key", "float32", {1, 2, 5, 4})}), logits)
                .find("with no free dim for the cached sequence"),
            std::string::npos);
  EXPECT_NE(errorOf(list({ids, entry("temperature", "float32", {1})}), logits)
                .find("input 'temperature' has no role"),
            std::string::npos);
  EXPECT_NE(errorOf(list({entry("x", "float32", {1, -1})}), logits).find("no token input"),
            std::string::npos);
  EXPECT_NE(errorOf(list({entry("input_ids", "int64", {4, -1})}), logits).find("has batch 4"),
            std::string::npos);
  EXPECT_NE(errorOf(list({ids}), list({entry("logits", "int64", {1, -1, 10})}))
                .find("expected float32 [batch, sequence, vocab]"),
            std::string::npos);
}

TEST(Sampler, GreedyPicksTheFirstLargest) {
  std::vector<float> logits{0.5F, 3.0F, -1.0F, 3.0F};
  Sampler greedy({}, 4);
  EXPECT_EQ(greedy.next(logits.data()), 1);
}

// Draws follow the softmax of logits / temperature: a fixed seed's 20000 draws land within 1.5 %
// of each token's probability.
TEST(Sampler, DrawsFollowTheDistribution) {
  std::vector<double> p{0.6, 0.25, 0.1, 0.05};
  std::vector<float> logits;
  logits.reserve(p.size());
  for (double x : p) logits.push_back(static_cast<float>(2.0 * std::log(x)));  // temperature 2
  SamplingOptions options{.greedy = false, .temperature = 2.0, .seed = 7};
  Sampler sampler(options, 4);
  std::vector<int> counts(4);
  const int draws = 20000;
  for (int i = 0; i < draws; ++i) ++counts[static_cast<size_t>(sampler.next(logits.data()))];
  for (size_t i = 0; i < p.size(); ++i) {
    EXPECT_NEAR(counts[i] / static_cast<double>(draws), p[i], 0.015) << "token " << i;
  }
}

TEST(Sampler, TopKAndTopPCutTheTail) {
  std::vector<float> logits{std::log(0.5F), std::log(0.3F), std::log(0.15F), std::log(0.05F)};
  auto drawn = [&](SamplingOptions options) {
    options.greedy = false;
    Sampler sampler(options, 4);
    std::set<int64_t> seen;
    for (int i = 0; i < 2000; ++i) seen.insert(sampler.next(logits.data()));
    return seen;
  };
  EXPECT_EQ(drawn({.topK = 2}), (std::set<int64_t>{0, 1}));
  EXPECT_EQ(drawn({.topK = 1}), (std::set<int64_t>{0}));
  EXPECT_EQ(drawn({.topP = 0.75}), (std::set<int64_t>{0, 1}));  // 0.5 + 0.3 reaches 0.75
  EXPECT_EQ(drawn({.topP = 0.45}), (std::set<int64_t>{0}));
  EXPECT_EQ(drawn({}), (std::set<int64_t>{0, 1, 2, 3}));
}

TEST(Sampler, TheSameSeedDrawsTheSameTokens) {
  std::vector<float> flat(1000, 0.0F);
  auto sequence = [&](uint64_t seed) {
    Sampler sampler({.greedy = false, .seed = seed}, 1000);
    std::vector<int64_t> tokens;
    tokens.reserve(50);
    for (int i = 0; i < 50; ++i) tokens.push_back(sampler.next(flat.data()));
    return tokens;
  };
  EXPECT_EQ(sequence(3), sequence(3));
  EXPECT_NE(sequence(3), sequence(4));
  // splitmix64 from seed 0: its first draw is 0xe220a8397b1dcdaf >> 11, times 2^-53.
  Sampler first({.greedy = false, .seed = 0}, 1000);
  double u = static_cast<double>(0xe220a8397b1dcdafULL >> 11) * 0x1.0p-53;
  EXPECT_EQ(first.next(flat.data()), static_cast<int64_t>(1000 * u));
}

TEST(Sampler, RefusesOptionsOutOfRange) {
  EXPECT_THROW(Sampler({.greedy = false, .temperature = 0}, 4), Error);
  EXPECT_THROW(Sampler({.greedy = false, .topP = 0}, 4), Error);
  EXPECT_THROW(Sampler({.greedy = false, .topP = 1.5}, 4), Error);
  EXPECT_THROW(Sampler({.greedy = false, .topK = -1}, 4), Error);
  EXPECT_THROW(Sampler({}, 0), Error);
}

}  // namespace
}  // namespace kiln::runtime
