// Bash completion through the script `kiln completion bash` prints, run in a real bash: the
// candidates are what the parser knows at that point of the command line.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_harness.h"
#include "kiln/support/error.h"

namespace kiln::test {
namespace {

// The completions bash offers for WORDS (after the program; the last one is being typed).
std::string complete(const std::string& script, const std::string& words) {
  return runShell(strCat("bash -c 'source ", script, "; COMP_WORDS=(", KILN_BIN, " ", words,
                         "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); ",
                         "_kiln_complete; printf \"%s \" \"${COMPREPLY[@]}\"'"))
      .output;
}

TEST(CliCompletion, BashCompletesSubcommandsOptionsAndLeavesValuesToFiles) {
  std::string dir = scratchDir();
  CommandResult r = runKiln("completion bash");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::string script = dir + "/kiln.bash";
  std::ofstream(script) << r.output;

  EXPECT_EQ(complete(script, "co"), "compile compare completion ");
  EXPECT_EQ(complete(script, "rpc s"), "server status ");
  EXPECT_EQ(complete(script, "compile --opt"), "--opt-level ");
  EXPECT_EQ(complete(script, "compile m.onnx -o out.so --ex"), "--executor --extension ");
  EXPECT_EQ(complete(script, "run --seed 3 --fill"), "--fill-mode ");
  // Where a value goes, no candidates: bash falls back to file names.
  EXPECT_EQ(complete(script, "compile --dump-ir \"\""), " ");
  EXPECT_EQ(complete(script, "nosuch --x"), " ");
  // Options of a subcommand are not offered at the top level.
  EXPECT_EQ(complete(script, "--opt"), " ");

  r = runKiln("completion zsh");
  EXPECT_EQ(r.exitCode, 2) << r.output;
}

}  // namespace
}  // namespace kiln::test
