// Decoders exported as Hugging Face exports them (past keys and values in, present ones out, the
// sequence and cache lengths free), GPT-2's block and a Llama block with grouped-query attention:
// with both lengths bounded, every tensor of the imported graph has an exact size in the
// symbols, its reshape targets computed from Shape, its causal mask sliced by the lengths and its
// key/value heads repeated for the query heads included.
#include <gtest/gtest.h>

#include "cli_harness.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"

namespace kiln::test {
namespace {

// Exports decoder KIND (decoder_models.py with ARGS) into DIR; its path, or "" when the export
// fails (which fails the test).
std::string exportedDecoder(const std::string& dir, const std::string& kind,
                            const std::string& args) {
  std::string model = strCat(dir, "/", kind, ".onnx");
  CommandResult r =
      runShell(strCat("/usr/bin/python3 ", KILN_SOURCE_DIR, "/tests/e2e/decoder_models.py ", kind,
                      " ", model, " ", args, " 2>&1"));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  return r.exitCode == 0 ? model : "";
}

// The IR kiln imports from decoder KIND with seq and past bounded ("" when a step fails).
std::string importedDecoder(const std::string& dir, const std::string& kind,
                            const std::string& args) {
  std::string model = exportedDecoder(dir, kind, args);
  if (model.empty()) return "";
  CommandResult r = runKiln("compile " + model + " -o " + dir +
                            "/import.ir --compile-to import --dim-bounds '1<=seq<=64, past<=64'");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  return r.exitCode == 0 ? readTextFile(dir + "/import.ir") : "";
}

TEST(CliDecoder, AnExportedDecodersSizesAreExactInItsSymbols) {
  std::string dir = scratchDir();
  std::string ir = importedDecoder(dir, "gpt2", "--layers 2 --d-model 64 --heads 4 --vocab 256");
  ASSERT_FALSE(ir.empty());
  EXPECT_NE(ir.find("dims \"past<=64, 1<=seq<=64\""), std::string::npos);
  EXPECT_EQ(ir.find('?'), std::string::npos) << "a size not known in the symbols:\n" << ir;
  EXPECT_NE(ir.find("%present.1.value = Concat[\"/blocks.1/Concat_4\"](%past_key_values.1.value"),
            std::string::npos);
  EXPECT_NE(ir.find(": float32[1,4,past+seq,16]"), std::string::npos);
  EXPECT_NE(ir.find(": float32[1,4,seq,past+seq]"), std::string::npos);  // the attention scores
  // Without bounds, the free dims are named in the error with both ways to fix them.
  CommandResult r = runKiln("compile " + dir + "/gpt2.onnx -o " + dir + "/x.so");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("symbolic dim 'seq'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--dim-bounds \"seq<=MAX\""), std::string::npos) << r.output;
}

TEST(CliDecoder, ALlamaBlocksSizesAreExactInItsSymbols) {
  std::string ir =
      importedDecoder(scratchDir(), "llama", "--layers 1 --d-model 64 --heads 4 --kv-heads 2");
  ASSERT_FALSE(ir.empty());
  EXPECT_EQ(ir.find('?'), std::string::npos) << "a size not known in the symbols:\n" << ir;
  EXPECT_NE(ir.find("%present.0.key = Concat"), std::string::npos);
  EXPECT_NE(ir.find(": float32[1,2,past+seq,16]"), std::string::npos);   // 2 key/value heads
  EXPECT_NE(ir.find(": float32[1,4,seq,past+seq]"), std::string::npos);  // 4 query heads
  EXPECT_NE(ir.find("%logits = MatMul"), std::string::npos);
}

// `kiln generate`: the report's lines, the interface it found, the options that exclude each
// other, and a model that is no decoder.
TEST(CliDecoder, GenerateReportsItsTokensAndRefusesWhatItCannotDo) {
  std::string dir = scratchDir();
  std::string model =
      exportedDecoder(dir, "llama", "--layers 1 --d-model 32 --heads 2 --kv-heads 1 --vocab 64");
  ASSERT_FALSE(model.empty());
  ASSERT_EQ(runKiln(strCat("compile ", model, " -o ", dir,
                           "/llama.so --dim-bounds "
                           "'1<=seq<=8, past<=8'"))
                .exitCode,
            0);
  std::string so = dir + "/llama.so";
  CommandResult r = runKiln("generate " + so + " --prompt-ids 1,2,3 --max-new-tokens 5 --verbose");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("positions: input 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("past_key_values.0.key <- present.0.key (axis 2, holds 8 tokens)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("prompt: 3 tokens, generated: 5 tokens"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("decode: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("over 4 steps; per-token latency p50 "), std::string::npos) << r.output;

  r = runKiln("generate " + so + " --prompt-ids 1 --greedy --top-k 3");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("--greedy picks the most likely token; it excludes --top-k"),
            std::string::npos)
      << r.output;
  r = runKiln("generate " + so + " --prompt-ids 1 --seed 4");
  EXPECT_NE(r.output.find("greedy decoding draws nothing"), std::string::npos) << r.output;
  r = runKiln("generate " + so + " --prompt-ids 1,x");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("--prompt-ids"), std::string::npos) << r.output;

  // A model without a cache has no token input either: the error names what it expected.
  std::string add = dir + "/add.onnx";
  ASSERT_EQ(runShell(strCat("/usr/bin/python3 -c \"import onnx; from onnx import helper as h, "
                            "TensorProto as T; onnx.save(h.make_model(h.make_graph([h.make_node("
                            "'Add', ['x', 'x'], ['y'])], 'g', [h.make_tensor_value_info('x', "
                            "T.FLOAT, [1, 4])], [h.make_tensor_value_info('y', T.FLOAT, [1, 4])])"
                            "), '",
                            add, "')\""))
                .exitCode,
            0);
  ASSERT_EQ(runKiln(strCat("compile ", add, " -o ", dir, "/add.so")).exitCode, 0);
  r = runKiln(strCat("generate ", dir, "/add.so --prompt-ids 1"));
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("the decoder has no token input: expected 'input_ids'"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace kiln::test
