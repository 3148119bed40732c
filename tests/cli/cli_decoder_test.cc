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

// Exports decoder KIND (decoder_models.py with ARGS) into DIR and returns the IR kiln imports
// from it with seq and past bounded ("" when a step fails, which fails the test).
std::string importedDecoder(const std::string& dir, const std::string& kind,
                            const std::string& args) {
  std::string model = strCat(dir, "/", kind, ".onnx");
  CommandResult r =
      runShell(strCat("/usr/bin/python3 ", KILN_SOURCE_DIR, "/tests/e2e/decoder_models.py ", kind,
                      " ", model, " ", args, " 2>&1"));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  r = runKiln("compile " + model + " -o " + dir + "/import.ir --compile-to import --dim-bounds " +
              "'1<=seq<=64, past<=64'");
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
  std::string dir = scratchDir();
  std::string model = dir + "/llama.onnx";
  CommandResult r =
      runShell(strCat("/usr/bin/python3 ", KILN_SOURCE_DIR, "/tests/e2e/decoder_models.py llama ",
                      model, " --layers 1 --d-model 64 --heads 4 --kv-heads 2 2>&1"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = runKiln("compile " + model + " -o " + dir + "/import.ir --compile-to import --dim-bounds " +
              "'1<=seq<=64, past<=64'");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::string ir = readTextFile(dir + "/import.ir");
  EXPECT_EQ(ir.find('?'), std::string::npos) << "a size not known in the symbols:\n" << ir;
  EXPECT_NE(ir.find("%present.0.key = Concat"), std::string::npos);
  EXPECT_NE(ir.find(": float32[1,2,past+seq,16]"), std::string::npos);   // 2 key/value heads
  EXPECT_NE(ir.find(": float32[1,4,seq,past+seq]"), std::string::npos);  // 4 query heads
  EXPECT_NE(ir.find("%logits = MatMul"), std::string::npos);
}

}  // namespace
}  // namespace kiln::test
