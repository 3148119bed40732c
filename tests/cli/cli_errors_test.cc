// Every user error the command line can meet ends with a non-zero exit and a message that names
// what was received and what was expected.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_harness.h"
#include "kiln/runtime/artifact.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(CliErrors, MissingModelFile) {
  std::string dir = scratchDir();
  CommandResult r = runKiln("compile " + dir + "/nope.onnx -o " + dir + "/x.so");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("nope.onnx"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("does not exist"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir + "/x.so"));
}

TEST(CliErrors, MalformedOnnxFile) {
  std::string dir = scratchDir();
  writeBytes(dir + "/bad.onnx", "this is not a protobuf \xff\xff\xff\xff\x01\x02");
  CommandResult r = runKiln("compile " + dir + "/bad.onnx -o " + dir + "/x.so");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("not a valid ONNX model"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir + "/x.so"));
}

TEST(CliErrors, TruncatedOnnxFile) {
  std::string dir = scratchDir();
  std::vector<uint8_t> model =
      readFile(nodeTestDir("test_conv_with_strides_padding") + "/model.onnx");
  for (size_t cut : {model.size() / 3, model.size() / 2, model.size() - 5}) {
    std::string path = dir + "/cut.onnx";
    writeBytes(path, std::string(model.begin(), model.begin() + static_cast<long>(cut)));
    CommandResult r = runKiln(strCat("compile ", path, " -o ", dir, "/x.so"));
    EXPECT_NE(r.exitCode, 0) << "cut at " << cut;
    EXPECT_NE(r.output.find("error:"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir + "/x.so"));
  }
}

TEST(CliErrors, UnsupportedOperatorNamesNodeAndOpset) {
  std::string dir = scratchDir();
  // Bernoulli's ONNX function draws random numbers (RandomUniformLike), which kiln does not.
  CommandResult r =
      runKiln("compile " + nodeTestDir("test_bernoulli") + "/model.onnx -o " + dir + "/x.so");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("'Bernoulli_0/RandomUniformLike_0' (op 'RandomUniformLike'"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("opset 15"), std::string::npos) << r.output;
}

TEST(CliErrors, WrongInputShape) {
  std::string dir = scratchDir();
  std::string so = compileRelu(dir);
  std::string npz = dir + "/wrong.npz";
  std::string py =
      "import numpy as np; np.savez('" + npz + "', x=np.zeros((3,4,6), dtype=np.float32))";
  ASSERT_EQ(std::system(("/usr/bin/python3 -c \"" + py + "\"").c_str()), 0);
  CommandResult r = runKiln("run " + so + " --inputs " + npz);
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("float32[3,4,5]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("float32[3,4,6]"), std::string::npos) << r.output;
}

TEST(CliErrors, WrongInputDtype) {
  std::string dir = scratchDir();
  std::string so = compileRelu(dir);
  std::string npz = dir + "/wrong.npz";
  std::string py =
      "import numpy as np; np.savez('" + npz + "', x=np.zeros((3,4,5), dtype=np.float64))";
  ASSERT_EQ(std::system(("/usr/bin/python3 -c \"" + py + "\"").c_str()), 0);
  CommandResult r = runKiln("run " + so + " --inputs " + npz);
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("float32"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("float64"), std::string::npos) << r.output;
}

TEST(CliErrors, MissingInputFile) {
  std::string dir = scratchDir();
  std::string so = compileRelu(dir);
  fs::create_directories(dir + "/empty");
  CommandResult r = runKiln("run " + so + " --inputs " + dir + "/empty");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("input_0.pb"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'x'"), std::string::npos) << r.output;
  r = runKiln("run " + so + " --inputs " + dir + "/absent.npz");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("absent.npz"), std::string::npos) << r.output;
}

TEST(CliErrors, ArtifactOfAnotherFormatVersion) {
  std::string dir = scratchDir();
  std::string so = compileRelu(dir);
  std::vector<uint8_t> bytes = readFile(so);
  const std::string magic = "KILNARTF";
  auto it = std::search(bytes.begin(), bytes.end(), magic.begin(), magic.end());
  ASSERT_NE(it, bytes.end()) << "artifact container not found in " << so;
  size_t at = static_cast<size_t>(it - bytes.begin()) + magic.size();
  bytes[at] = 99;  // the format version follows the magic, little-endian
  std::string patched = dir + "/patched.so";
  writeBytes(patched, std::string(bytes.begin(), bytes.end()));
  // The checksum sees the change first; without it, the container names both versions.
  CommandResult r = runKiln("run " + patched);
  EXPECT_EQ(r.exitCode, 4) << r.output;
  EXPECT_NE(r.output.find("is corrupt"), std::string::npos) << r.output;
  r = runKiln("run --no-verify " + patched);
  EXPECT_EQ(r.exitCode, 4) << r.output;
  EXPECT_NE(r.output.find("99"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(strCat("format version ", runtime::kArtifactFormatVersion)),
            std::string::npos)
      << r.output;
}

TEST(CliErrors, BadInputShapesOption) {
  std::string dir = scratchDir();
  CommandResult r = runKiln("compile " + nodeTestDir("test_relu") + "/model.onnx -o " + dir +
                            "/x.so --input-shapes 'x:[3,4'");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("name:[d0,d1,...]"), std::string::npos) << r.output;
}

TEST(CliErrors, ArtifactForAnotherArchitecture) {
  std::string dir = scratchDir();
  CommandResult r = runKiln("compile " + nodeTestDir("test_relu") + "/model.onnx -o " + dir +
                            "/arm.so --target 'llvm -mtriple=aarch64-linux-gnu -mattr=+neon'");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = runKiln("run " + dir + "/arm.so");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("code for aarch64"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("this machine is x86_64"), std::string::npos) << r.output;
  // inspect reads the file without loading it, so it works for any architecture.
  r = runKiln("inspect " + dir + "/arm.so");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("aarch64"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("x: float32[3,4,5]"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kiln::test
