// A decoder's key/value cache written in place (cache-in-place): the past and present of each
// cache share one storage laid out for its capacity, a run appends the new rows only, and
// set_input_from_output carries a present into the next run's past without a copy. The carried
// cache must give the logits of a cache copied through the caller and of the same model compiled
// without the pass, and a decode step must allocate nothing.
#include <gtest/gtest.h>

#include <cstdlib>

#include "allocation_counter.h"
#include "kiln/driver/compile.h"
#include "kiln/opdef/dim_bounds.h"
#include "kiln/runtime/artifact.h"
#include "kiln/runtime/generate.h"
#include "kiln/support/error.h"
#include "kiln/support/json.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

const char* kPasts[] = {"past_key_values.0.key", "past_key_values.0.value", "past_key_values.1.key",
                        "past_key_values.1.value"};

// A two-layer GPT-2 decoder (2 heads of 16), compiled at OPT_LEVEL with a prompt of up to 8 and a
// cache of up to 24 tokens: the cache is laid out for 32 rows.
class KvCache : public ::testing::Test {
 protected:
  // The folder holding both libraries, compiled by the first test that asks.
  static const std::string& libraries() {
    static const std::string kDir = [] {
      std::string d = scratchDir();
      std::string onnx = d + "/gpt2.onnx";
      std::string cmd =
          strCat("/usr/bin/python3 ", KILN_SOURCE_DIR, "/tests/e2e/decoder_models.py gpt2 ", onnx,
                 " --layers 2 --d-model 32 --heads 2 --vocab 64 > /dev/null 2>&1");
      if (std::system(cmd.c_str()) != 0) throw Error(strCat("failed: ", cmd));
      for (int level : {3, 1}) {
        driver::CompileOptions options;
        options.dimBounds = opdef::parseDimBounds("1<=seq<=8, past<=24");
        options.optLevel = level;
        driver::compileOnnxFile(onnx, strCat(d, "/gpt2_o", level, ".so"), options);
      }
      return d;
    }();
    return kDir;
  }

  static runtime::Module executor(int level) {
    return runtime::loadModule(strCat(libraries(), "/gpt2_o", level, ".so"))["default"](
               runtime::Device::cpu())
        .asModule();
  }

  static runtime::NDArray ids(int64_t first, int64_t count) {
    std::vector<int64_t> v;
    for (int64_t i = 0; i < count; ++i) v.push_back((first + i) * 7 % 64);
    return runtime::NDArray::fromBytes({1, count}, runtime::DataType::int64(), v.data(),
                                       v.size() * 8);
  }

  static void emptyPasts(runtime::Module& ex) {
    for (const char* name : kPasts) {
      ex["set_input"](name, runtime::NDArray::empty({1, 2, 0, 16}, runtime::DataType::float32()));
    }
  }

  // The logits of a prompt of 5 tokens and 6 single-token steps; CARRY gives each past the last
  // present inside the executor, else through the caller (get_output, set_input).
  static std::vector<std::vector<float>> generate(runtime::Module ex, bool carry) {
    std::vector<std::vector<float>> logits;
    emptyPasts(ex);
    int64_t cached = 0;
    for (int64_t step = 0; step < 7; ++step) {
      int64_t count = step == 0 ? 5 : 1;
      ex["set_input"]("input_ids", ids(cached, count));
      if (step > 0) {
        for (int64_t i = 0; i < 4; ++i) {
          if (carry) {
            ex["set_input_from_output"](i + 1, i + 1);
          } else {
            ex["set_input"](i + 1, ex["get_output"](i + 1));
          }
        }
      }
      ex["run"]();
      logits.push_back(toVector(ex["get_output"](0).asNDArray()));
      cached += count;
    }
    return logits;
  }
};

TEST_F(KvCache, PastAndPresentShareOneStorageLaidOutForTheCapacity) {
  runtime::ArtifactFile file = runtime::readArtifactFile(libraries() + "/gpt2_o3.so");
  const Json& meta = file.artifact.models.at(0).metadata;
  std::map<std::string, const Json*> byName;
  for (const Json& t : meta.at("tensors").asArray()) byName[t.at("name").asString()] = &t;
  for (const char* layer : {"0", "1"}) {
    for (const char* kind : {"key", "value"}) {
      const Json& past = *byName.at(strCat("past_key_values.", layer, ".", kind));
      const Json& present = *byName.at(strCat("present.", layer, ".", kind));
      ASSERT_TRUE(past.contains("cache")) << past.dump();
      ASSERT_TRUE(present.contains("cache")) << present.dump();
      EXPECT_EQ(present.at("cache").at("rows").asInt(), 32);  // 24 cached + 8 new
      EXPECT_EQ(past.at("cache").at("axis").asInt(), 2);
      EXPECT_EQ(past.at("storage").asInt(), present.at("storage").asInt());
    }
  }
  int appends = 0;  // the kernels writing the presents append, and only they
  const Json::Array& tensors = meta.at("tensors").asArray();
  for (const Json& k : meta.at("kernels").asArray()) {
    bool append = k.at("ops").asArray().at(0).asString() == "kiln.CacheAppend";
    auto out = static_cast<size_t>(k.at("args").asArray().back().asInt());
    bool present = tensors.at(out).at("name").asString().rfind("present", 0) == 0;
    EXPECT_EQ(append, present) << k.dump();
    appends += append ? 1 : 0;
  }
  EXPECT_EQ(appends, 4);
}

TEST_F(KvCache, CarriedCacheGivesTheLogitsOfACopiedCacheAndOfTheUnfusedModel) {
  std::vector<std::vector<float>> carried = generate(executor(3), true);
  std::vector<std::vector<float>> copied = generate(executor(3), false);
  std::vector<std::vector<float>> unfused = generate(executor(1), false);
  ASSERT_EQ(carried.size(), 7U);
  for (size_t step = 0; step < carried.size(); ++step) {
    EXPECT_EQ(carried[step], copied[step]) << "step " << step;
    EXPECT_LT(relativeError(carried[step], unfused[step]), 1e-4) << "step " << step;
  }
}

TEST_F(KvCache, PresentsReadBackHoldThePastRowsThenTheNewOnes) {
  runtime::Module ex = executor(3);
  emptyPasts(ex);
  ex["set_input"]("input_ids", ids(0, 3));
  ex["run"]();
  std::vector<float> first = toVector(ex["get_output"](4).asNDArray());  // present.1.value
  ASSERT_EQ(first.size(), 2U * 3 * 16);
  ex["set_input"]("input_ids", ids(3, 2));
  for (int64_t i = 0; i < 4; ++i) ex["set_input_from_output"](kPasts[i], i + 1);
  EXPECT_EQ(ex["get_input"]("past_key_values.1.value").asNDArray().shape(),
            (runtime::Shape{1, 2, 3, 16}));
  ex["run"]();
  runtime::NDArray second = ex["get_output"](4).asNDArray();
  ASSERT_EQ(second.shape(), (runtime::Shape{1, 2, 5, 16}));
  std::vector<float> rows = toVector(second);
  for (size_t head = 0; head < 2; ++head) {  // each head's first 3 rows are the last run's
    for (size_t e = 0; e < size_t{48}; ++e) {
      EXPECT_EQ(rows[head * 5 * 16 + e], first[head * 3 * 16 + e]) << head << "," << e;
    }
  }
}

TEST_F(KvCache, DecodeStepsAllocateNothing) {
  runtime::Module ex = executor(3);
  emptyPasts(ex);
  ex["set_input"]("input_ids", ids(0, 8));
  ex["run"]();
  runtime::PackedFunc run = ex["run"], carry = ex["set_input_from_output"];
  runtime::PackedFunc setInput = ex["set_input"];
  std::vector<runtime::Args> carries;
  for (int64_t i = 1; i <= 4; ++i) carries.push_back({runtime::Value(i), runtime::Value(i)});
  runtime::Args token{runtime::Value(int64_t{0}), runtime::Value(ids(8, 1))};
  for (int step = 0; step < 16; ++step) {  // 8 prompt tokens, then up to 24 cached
    long before = allocationCount();
    setInput.callPacked(token);
    for (const runtime::Args& args : carries) carry.callPacked(args);
    run.callPacked(runtime::Args{});
    EXPECT_EQ(allocationCount(), before) << "step " << step;
  }
  EXPECT_EQ(ex["get_input"](1).asNDArray().shape(), (runtime::Shape{1, 2, 23, 16}));
}

// The whole loop: between one token's callback and the next lies one decode step (its inputs,
// the caches carried, the run, the logits read and the pick), greedy or sampled.
TEST_F(KvCache, GeneratorDecodeStepsAllocateNothing) {
  runtime::Generator generator(executor(3));
  for (bool greedy : {true, false}) {
    std::vector<long> counts;
    counts.reserve(16);
    runtime::GenerateOptions options;
    options.maxNewTokens = 16;  // 8 + 16 - 2 = 22 cached at most, of 24
    if (!greedy) options.sampling = {.greedy = false, .topK = 5, .temperature = 0.8, .seed = 1};
    options.onToken = [&](int64_t) { counts.push_back(allocationCount()); };
    runtime::GenerateResult result = generator.generate({1, 2, 3, 4, 5, 6, 7, 8}, options);
    ASSERT_EQ(counts.size(), 16U);
    for (size_t i = 1; i < counts.size(); ++i) {
      EXPECT_EQ(counts[i], counts[i - 1]) << "step " << i << (greedy ? ", greedy" : ", sampled");
    }
  }
}

TEST_F(KvCache, CarryingIsRefusedBeforeARunAndBetweenTensorsThatDoNotFit) {
  runtime::Module ex = executor(3);
  EXPECT_EQ(errorOf([&] { ex["set_input_from_output"](1, 1); }),
            "set_input_from_output('past_key_values.0.key', 'present.0.key'): model 'default' "
            "has not run yet, so its outputs have no value");
  emptyPasts(ex);
  ex["set_input"]("input_ids", ids(0, 2));
  ex["run"]();
  EXPECT_EQ(errorOf([&] { ex["set_input_from_output"](1, 0); }),
            "set_input_from_output('past_key_values.0.key'): expected float32[1,2,?,16], got "
            "float32[1,2,64]");
  // A past written after the run overwrites its present's rows: reading that present is refused
  // until the next run, also when another past would be carried from it.
  ex["set_input_from_output"]("past_key_values.0.key", 2);  // present.0.value, copied
  std::string stale =
      "output 'present.0.key' of model 'default' shares its storage with input "
      "'past_key_values.0.key', which was set after the last run; run() again to read it";
  EXPECT_EQ(errorOf([&] { ex["get_output"](1); }), "get_output: " + stale);
  EXPECT_EQ(errorOf([&] { ex["set_input_from_output"]("past_key_values.0.value", 1); }),
            "set_input_from_output: " + stale);
  EXPECT_EQ(errorOf([&] { ex["set_input_from_output"](1, 9); }),
            "set_input_from_output: output index 9 is out of range; model 'default' has 5 "
            "outputs");
  emptyPasts(ex);
  ex["run"]();
  EXPECT_EQ(ex["get_output"](1).asNDArray().shape(), (runtime::Shape{1, 2, 2, 16}));
}

}  // namespace
}  // namespace kiln::test
