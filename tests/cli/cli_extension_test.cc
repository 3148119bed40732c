// Extensions through the kiln executable: loaded from --extension and KILN_EXTENSION_PATH by every
// subcommand that compiles or runs, every entry used, and a failed load exit status 6 naming it.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_harness.h"
#include "kiln/extension/extension_api.h"
#include "kiln/support/error.h"

namespace kiln::test {
namespace {

const std::string kExt = KILN_TEST_EXTENSIONS;

TEST(CliExtensions, EveryCommandThatCompilesOrRunsLoadsThem) {
  for (const char* cmd : {"compile", "run", "inspect", "compare", "rpc server"}) {
    CommandResult r = runKiln(strCat(cmd, " --help --extension ", kExt, "/both/ext_alpha.so"));
    EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("alpha  A test accelerator"), std::string::npos) << cmd << r.output;
    EXPECT_EQ(r.output.find("beta"), std::string::npos) << cmd << r.output;
  }
}

TEST(CliExtensions, EveryPathEntryIsUsedAndNoneShadowsAnother) {
  // A folder in the environment and a file on the command line: both load.
  CommandResult r = runKiln(strCat("compile --help --extension ", kExt, "/both/ext_beta.so"));
  EXPECT_EQ(r.output.find("alpha"), std::string::npos) << r.output;
  std::string env =
      strCat("KILN_EXTENSION_PATH=", kExt, "/none_here::", kExt, "/both/ext_alpha.so");
  r = runKiln(strCat("compile --help --extension ", kExt, "/both/ext_beta.so"), env);
  EXPECT_EQ(r.exitCode, 6) << r.output;  // an entry that does not exist is an error, not skipped
  EXPECT_NE(r.output.find("none_here' does not exist"), std::string::npos) << r.output;
  env = strCat("KILN_EXTENSION_PATH=", kExt, "/both/ext_alpha.so:", kExt, "/both");
  r = runKiln(strCat("run --help --extension=", kExt, "/both/ext_beta.so"), env);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("alpha  A test accelerator"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("beta  A test accelerator"), std::string::npos) << r.output;
}

TEST(CliExtensions, TargetAttributesAreTypedOptions) {
  std::string ext = strCat(" --extension ", kExt, "/both/ext_alpha.so");
  CommandResult r = runKiln("compile --help" + ext);
  EXPECT_NE(r.output.find("--target-alpha-tile <int>:int=4"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--target-alpha-mode <string>:string=fast"), std::string::npos)
      << r.output;
  r = runKiln("compare --help" + ext);
  EXPECT_NE(r.output.find("--target-alpha-tile"), std::string::npos) << r.output;
  r = runKiln("compile m.onnx -o m.so --target-alpha-tile wide" + ext);
  EXPECT_EQ(r.exitCode, 2) << r.output;  // a usage error, found while parsing
  EXPECT_NE(r.output.find("--target-alpha-tile 'wide' is not valid; expected a 64-bit integer"),
            std::string::npos)
      << r.output;
  r = runKiln("compile m.onnx -o m.so --target-alpha-tile 8");  // not loaded: no such option
  EXPECT_EQ(r.exitCode, 2) << r.output;
}

TEST(CliExtensions, AConfigFileCannotLoadThem) {
  // Extensions are loaded before parsing (they add options), so a file cannot name one.
  std::string dir = scratchDir();
  std::string cfg = dir + "/kiln.json";
  std::ofstream(cfg) << R"({"compile": {"extension": ")" << kExt << R"(/both"}})";
  CommandResult r = runKiln("compile --help --config " + cfg);
  EXPECT_EQ(r.exitCode, 0) << r.output;  // --help answers before the file is read
  r = runKiln("compile m.onnx -o m.so --config " + cfg);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("has no option --extension that a file may set"), std::string::npos)
      << r.output;
}

TEST(CliExtensions, AFailedLoadIsExitStatusSixNamingTheFile) {
  CommandResult r = runKiln(strCat("compile --help --extension ", kExt, "/future"));
  EXPECT_EQ(r.exitCode, 6) << r.output;
  EXPECT_NE(r.output.find("ext_future.so' was built for kiln extension API version 99"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(strCat("extensions of version ", KILN_ABI_VERSION)), std::string::npos)
      << r.output;
  r = runKiln(strCat("inspect x.so --extension ", kExt, "/both --extension ", kExt, "/again"));
  EXPECT_EQ(r.exitCode, 6) << r.output;
  EXPECT_NE(r.output.find("backend 'alpha' is already registered by"), std::string::npos)
      << r.output;
  r = runKiln("--version");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find(strCat("extension API version ", KILN_ABI_VERSION)), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("artifact format version"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kiln::test
