// --config FILE.json: option defaults for every subcommand from a file, with the command line
// winning, and every mistake in the file a usage error (exit 2) naming the key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_harness.h"
#include "kiln/support/error.h"

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

std::string writeConfig(const std::string& dir, const std::string& json) {
  std::string path = dir + "/kiln.json";
  std::ofstream(path) << json;
  return path;
}

TEST(CliConfig, FileSetsDefaultsAndTheCommandLineWins) {
  std::string dir = scratchDir();
  std::string cfg = writeConfig(dir, R"({"compile": {"dump-ir": ")" + dir + R"(/from_file"}})");
  CommandResult r = runKiln("compile " + reluModel() + " -o " + dir + "/a.so --config " + cfg);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir + "/from_file/00-input.ir"));

  // Before the subcommand too; an explicit --dump-ir wins over the file's.
  fs::remove_all(dir + "/from_file");
  r = runKiln("--config " + cfg + " compile " + reluModel() + " -o " + dir + "/b.so --dump-ir " +
              dir + "/from_flag");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir + "/from_flag/00-input.ir"));
  EXPECT_FALSE(fs::exists(dir + "/from_file"));

  // A flag and a section for another subcommand.
  cfg = writeConfig(dir, R"({"inspect": {"json": true}, "run": {"seed": 3}})");
  r = runKiln("inspect " + dir + "/a.so --config " + cfg);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(r.output.rfind('{', 0), 0u) << r.output;  // JSON, as with --json
}

TEST(CliConfig, MistakesInTheFileAreUsageErrors) {
  std::string dir = scratchDir();
  std::string model = reluModel();
  struct Case {
    std::string json, expected;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"compile": {"opt-levl": 2}})", "'compile' has no option --opt-levl"},
           {R"({"compil": {"opt-level": 2}})", "kiln has no subcommand 'compil'"},
           {R"({"compile": {"opt-level": "high"}})", "high"},
           {R"({"compile": {"opt-level": null}})", "'compile.opt-level' has the value null"},
           {R"({"compile": )", "not valid JSON"},
           {R"([1, 2])", "expected a JSON object of subcommands"},
           {R"({"rpc": {"server": {"prot": 9000}}})", "'rpc.server' has no option --prot"},
       }) {
    std::string cfg = writeConfig(dir, c.json);
    CommandResult r = runKiln(strCat("compile ", model, " -o ", dir, "/x.so --config ", cfg));
    EXPECT_EQ(r.exitCode, 2) << c.json << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.json << "\n" << r.output;
    EXPECT_FALSE(fs::exists(dir + "/x.so")) << c.json;
  }
  CommandResult r =
      runKiln("compile " + model + " -o " + dir + "/x.so --config " + dir + "/no.json");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("no.json"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kiln::test
