// The documented workflows of `kiln compile`, `kiln run` and `kiln inspect`, end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cli_harness.h"
#include "kiln/frontend/onnx/tensor_proto.h"
#include "kiln/support/error.h"
#include "kiln/support/json.h"
#include "npz.h"

namespace kiln::test {
namespace {

float maxAbsDiff(const runtime::NDArray& a, const runtime::NDArray& b) {
  EXPECT_EQ(a.shape(), b.shape());
  float worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    worst = std::max(worst, std::fabs(a.data<float>()[i] - b.data<float>()[i]));
  }
  return worst;
}

TEST(CliRun, TensorProtoFoldersMatchOnnxTestData) {
  std::string dir = scratchDir();
  for (const char* name : {"test_relu", "test_add_bcast", "test_conv_with_strides_padding"}) {
    std::string data = nodeTestDir(name);
    std::string so = dir + "/" + name + ".so";
    CommandResult r = runKiln(strCat("compile ", data, "/model.onnx -o ", so));
    ASSERT_EQ(r.exitCode, 0) << r.output;
    std::string out = dir + "/" + name + "_out";
    r = runKiln(strCat("run ", so, " --inputs ", data, "/test_data_set_0 --outputs ", out));
    ASSERT_EQ(r.exitCode, 0) << r.output;
    runtime::NDArray got = frontend::onnx::loadTensorProto(out + "/output_0.pb");
    runtime::NDArray want = frontend::onnx::loadTensorProto(data + "/test_data_set_0/output_0.pb");
    EXPECT_LE(maxAbsDiff(got, want), 1e-5) << name;
  }
}

// A model taking and giving a sequence: run, profiled, and dumped node by node.
// DIR/model.so compiled from node test NAME's model; "" (and a failure) when it does not compile.
std::string compiledNodeTest(const std::string& dir, const std::string& name) {
  std::string so = dir + "/model.so";
  CommandResult r = runKiln("compile " + nodeTestDir(name) + "/model.onnx -o " + so);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  return r.exitCode == 0 ? so : "";
}

TEST(CliRun, SequencesInAndOut) {
  std::string dir = scratchDir();
  std::string data = nodeTestDir("test_sequence_insert_at_back");
  std::string so = compiledNodeTest(dir, "test_sequence_insert_at_back");
  ASSERT_FALSE(so.empty());
  CommandResult r =
      runKiln("run " + so + " --inputs " + data + "/test_data_set_0 --outputs " + dir + "/o");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  using runtime::ValueKind;
  runtime::TensorList want =
      frontend::onnx::loadListProto(data + "/test_data_set_0/output_0.pb", ValueKind::kSequence);
  runtime::TensorList got =
      frontend::onnx::loadListProto(dir + "/o/output_0.pb", ValueKind::kSequence);
  ASSERT_EQ(got.items.size(), want.items.size());
  ASSERT_GT(want.items.size(), 1u);
  for (size_t i = 0; i < want.items.size(); ++i) {
    ASSERT_EQ(got.items[i].dtype(), want.items[i].dtype()) << i;
    ASSERT_EQ(got.items[i].shape(), want.items[i].shape()) << i;
    EXPECT_EQ(std::memcmp(got.items[i].data(), want.items[i].data(), want.items[i].nbytes()), 0)
        << i;
  }

  r = runKiln("run " + so + " --inputs " + data + "/test_data_set_0 --profile --repeat 2");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find(strCat("seq(", want.items.size(), ")")), std::string::npos) << r.output;

  std::string dump = dir + "/nodes";
  r = runKiln("run " + so + " --inputs " + data + "/test_data_set_0 --dump-outputs " + dump);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  // The sequence output gives one file per tensor: NNN_<node>_0_<i>.npy.
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dump))
    files.push_back(entry.path().filename().string());
  for (size_t i = 0; i < want.items.size(); ++i) {
    std::string tail = strCat("_0_", i, ".npy");
    EXPECT_TRUE(std::any_of(files.begin(), files.end(),
                            [&](const std::string& f) {
                              return f.size() > tail.size() &&
                                     f.compare(f.size() - tail.size(), tail.size(), tail) == 0;
                            }))
        << tail << " in " << r.output;
  }
}

// A model of strings, fed and read through .npz files NumPy writes and reads.
TEST(CliRun, StringsThroughNpz) {
  std::string dir = scratchDir();
  std::string so =
      compiledNodeTest(dir, "test_strnormalizer_export_monday_insensintive_upper_twodim");
  ASSERT_FALSE(so.empty());
  CommandResult r = runKiln("inspect " + so);
  EXPECT_NE(r.output.find("string[1,6]"), std::string::npos) << r.output;
  runPythonScript(dir, "in",
                  "import numpy as np\n"
                  "np.savez('" +
                      dir +
                      "/in.npz', x=np.array([['Monday', 'sunday', 'MONDAY', "
                      "'\\u00e9t\\u00e9', 'x', 'monday']]))\n");
  r = runKiln("run " + so + " --inputs " + dir + "/in.npz --outputs " + dir + "/out.npz");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  runPythonScript(dir, "out",
                  "import numpy as np\n"
                  "y = np.load('" +
                      dir +
                      "/out.npz')['y']\n"
                      "assert y.tolist() == [['SUNDAY', '\\u00c9T\\u00c9', 'X']], y\n");
  r = runKiln("run " + so);
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("--fill-mode cannot make model input 'x', which is string[1,6]"),
            std::string::npos)
      << r.output;
}

TEST(CliRun, NpzInAndOut) {
  std::string dir = scratchDir();
  std::string data = nodeTestDir("test_relu");
  std::string so = dir + "/relu.so";
  ASSERT_EQ(runKiln("compile " + data + "/model.onnx -o " + so).exitCode, 0);
  runtime::NDArray x = runtime::NDArray::empty({3, 4, 5}, runtime::DataType::float32());
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = static_cast<float>(i % 7) - 3.f;
  cli::writeNpz(dir + "/in.npz", {{"x", x}});
  CommandResult r =
      runKiln("run " + so + " --inputs " + dir + "/in.npz --outputs " + dir + "/out.npz");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  cli::NamedArrays out = cli::readNpz(dir + "/out.npz");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].first, "y");
  for (int64_t i = 0; i < x.numel(); ++i) {
    EXPECT_EQ(out[0].second.data<float>()[i], std::max(0.f, x.data<float>()[i]));
  }
}

TEST(CliRun, TimingJsonIsTheLastLine) {
  std::string dir = scratchDir();
  std::string so = dir + "/relu.so";
  ASSERT_EQ(runKiln("compile " + nodeTestDir("test_relu") + "/model.onnx -o " + so).exitCode, 0);
  CommandResult r = runKiln("run " + so + " --print-time --repeat 7 --number 2 --json --threads 1");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::string text = r.output;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  Json stats = Json::parse(text.substr(text.rfind('\n') + 1));
  EXPECT_EQ(stats.at("runs").asInt(), 7);
  for (const char* key :
       {"mean_ms", "median_ms", "min_ms", "max_ms", "std_ms", "p90_ms", "p99_ms"}) {
    EXPECT_GE(stats.at(key).asDouble(), 0.0) << key;
  }
  EXPECT_LE(stats.at("min_ms").asDouble(), stats.at("median_ms").asDouble());
  EXPECT_LE(stats.at("median_ms").asDouble(), stats.at("p90_ms").asDouble());
  EXPECT_LE(stats.at("p99_ms").asDouble(), stats.at("max_ms").asDouble());
}

TEST(CliRun, FillModesAndPrintTop) {
  std::string dir = scratchDir();
  std::string so = dir + "/relu.so";
  ASSERT_EQ(runKiln("compile " + nodeTestDir("test_relu") + "/model.onnx -o " + so).exitCode, 0);
  CommandResult r =
      runKiln("run " + so + " --fill-mode ones --outputs " + dir + "/o.npz --print-top 2");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("top 2"), std::string::npos) << r.output;
  runtime::NDArray y = cli::readNpz(dir + "/o.npz").at(0).second;
  for (int64_t i = 0; i < y.numel(); ++i) EXPECT_EQ(y.data<float>()[i], 1.0f);
  r = runKiln("run " + so + " --fill-mode sometimes");
  EXPECT_NE(r.exitCode, 0);
}

TEST(CliRun, ModelNameAndInspect) {
  std::string dir = scratchDir();
  std::string so = dir + "/relu.so";
  CommandResult r = runKiln("compile " + nodeTestDir("test_relu") + "/model.onnx -o " + so +
                            " --model-name relu_net --opt-level 1");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(runKiln("run " + so + " --model-name relu_net").exitCode, 0);
  r = runKiln("run " + so);  // "default" is not in this library
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("relu_net"), std::string::npos) << r.output;
  r = runKiln("inspect " + so);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("relu_net"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("float32[3,4,5]"), std::string::npos) << r.output;
}

TEST(CliRun, DumpIrWritesEveryPass) {
  std::string dir = scratchDir();
  CommandResult r = runKiln("compile " + nodeTestDir("test_conv_with_strides_padding") +
                            "/model.onnx -o " + dir + "/c.so --dump-ir " + dir + "/ir");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  int irFiles = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/ir")) {
    irFiles += e.path().extension() == ".ir";
  }
  EXPECT_GE(irFiles, 5);  // the input and one file per pass at -O3
  EXPECT_TRUE(std::filesystem::exists(dir + "/ir/kernels.tir"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/ir/module.ll"));
}

// --dump-ir writes each kernel's schedule; --schedule reads such records back, and a record that
// changes a knob shows in the next dump while the results stay the same.
TEST(CliRun, ScheduleFileOverridesKnobs) {
  std::string dir = scratchDir();
  std::string data = nodeTestDir("test_conv_with_strides_padding");
  std::string model = data + "/model.onnx";
  CommandResult r = runKiln("compile " + model + " -o " + dir + "/a.so --dump-ir " + dir + "/a");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  // The first knob of the first kernel that has one, set to an end of its range other than the
  // value the compiler chose.
  std::ifstream in(dir + "/a/schedules.json");
  Json record;
  std::string knob;
  int64_t chosen = 0;
  for (std::string line; knob.empty() && std::getline(in, line);) {
    record = Json::parse(line);
    for (const auto& [name, range] : record.at("ranges").asObject()) {
      knob = name;
      int64_t lo = range[0].asInt(), hi = range[1].asInt();
      chosen = record.at("knobs").at(name).asInt() == lo ? hi : lo;
      break;
    }
  }
  ASSERT_FALSE(knob.empty()) << "no kernel declared a knob";
  ASSERT_NE(record.at("knobs").at(knob).asInt(), chosen) << knob << " has a one-value range";
  record["knobs"][knob] = Json(chosen);
  std::ofstream(dir + "/s.json") << record.dump() << "\n";
  r = runKiln("compile " + model + " -o " + dir + "/b.so --schedule " + dir + "/s.json --dump-ir " +
              dir + "/b");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::ifstream again(dir + "/b/schedules.json");
  bool applied = false;
  for (std::string line; std::getline(again, line);) {
    Json j = Json::parse(line);
    if (j.at("workload").asString() == record.at("workload").asString()) {
      applied = j.at("knobs").at(knob).asInt() == chosen;
    }
  }
  EXPECT_TRUE(applied) << knob << " = " << chosen << " was not applied";
  r = runKiln("run " + dir + "/b.so --inputs " + data + "/test_data_set_0 --outputs " + dir + "/o");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  runtime::NDArray got = frontend::onnx::loadTensorProto(dir + "/o/output_0.pb");
  runtime::NDArray want = frontend::onnx::loadTensorProto(data + "/test_data_set_0/output_0.pb");
  EXPECT_LE(maxAbsDiff(got, want), 1e-4);

  std::ofstream(dir + "/bad.json") << "{\"workload\": 3}\n";
  r = runKiln("compile " + model + " -o " + dir + "/c.so --schedule " + dir + "/bad.json");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("bad.json', record 1"), std::string::npos) << r.output;
  r = runKiln("compile " + model + " -o " + dir + "/c.so --schedule " + dir + "/missing.json");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("missing.json"), std::string::npos) << r.output;
}

TEST(CliRun, ArtifactNamedRelativeToTheCurrentFolder) {
  std::string dir = scratchDir();
  std::string kiln = KILN_BIN;
  std::string model = nodeTestDir("test_relu") + "/model.onnx";
  std::string cmd = "cd " + dir + " && " + kiln + " compile " + model +
                    " -o relu.so >/dev/null && " + kiln + " run relu.so >/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
}

TEST(CliRun, TargetOption) {
  std::string dir = scratchDir();
  std::string data = nodeTestDir("test_conv_with_strides_padding");
  // AVX2 code (8 lanes) runs on any x86-64 machine this suite runs on.
  CommandResult r = runKiln("compile " + data + "/model.onnx -o " + dir +
                            "/c.so --target 'llvm -mcpu=haswell -mattr=+avx2,+fma'");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = runKiln("run " + dir + "/c.so --inputs " + data + "/test_data_set_0 --outputs " + dir + "/o");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  runtime::NDArray got = frontend::onnx::loadTensorProto(dir + "/o/output_0.pb");
  runtime::NDArray want = frontend::onnx::loadTensorProto(data + "/test_data_set_0/output_0.pb");
  EXPECT_LE(maxAbsDiff(got, want), 1e-4);
  r = runKiln("inspect " + dir + "/c.so");
  EXPECT_NE(r.output.find("haswell"), std::string::npos) << r.output;

  r = runKiln("compile " + data + "/model.onnx -o " + dir + "/d.so --target 'llvm -mcpu=pentium9'");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("pentium9"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/d.so"));
}

// y = Relu(x), x and y float32[batch, 4]: a model with a named free dim.
bool saveBatchReluModel(const std::string& path) {
  std::string py =
      "import onnx; from onnx import helper as h, TensorProto as T; "
      "x = h.make_tensor_value_info('x', T.FLOAT, ['batch', 4]); "
      "y = h.make_tensor_value_info('y', T.FLOAT, ['batch', 4]); "
      "g = h.make_graph([h.make_node('Relu', ['x'], ['y'])], 'g', [x], [y]); "
      "onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', 13)]), '" +
      path + "')";
  return std::system(("/usr/bin/python3 -c \"" + py + "\"").c_str()) == 0;
}

TEST(CliRun, InputShapesResolveSymbolicDims) {
  std::string dir = scratchDir();
  std::string model = dir + "/sym.onnx";
  ASSERT_TRUE(saveBatchReluModel(model));

  CommandResult r = runKiln("compile " + model + " -o " + dir + "/s.so");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("batch"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--input-shapes"), std::string::npos) << r.output;

  r = runKiln("compile " + model + " -o " + dir + "/s.so --input-shapes 'x:[3,4]'");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = runKiln("run " + dir + "/s.so --fill-mode ones");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("float32[3,4]"), std::string::npos) << r.output;

  r = runKiln("compile " + model + " -o " + dir + "/s.so --input-shapes 'x:[3,5]'");
  EXPECT_NE(r.exitCode, 0) << "the fixed dim 4 contradicts 5";
}

// One library for every batch size within a bound: the model's named dim takes its size from the
// input at run time; a size outside the bound is refused naming it; a bound on no dim is a typo.
TEST(CliRun, DimBoundsMakeOneLibraryForEverySize) {
  std::string dir = scratchDir();
  std::string model = dir + "/sym.onnx";
  ASSERT_TRUE(saveBatchReluModel(model));
  CommandResult r = runKiln("compile " + model + " -o " + dir + "/s.so --dim-bounds 'batch<=8'");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = runKiln("compile " + model + " -o " + dir + "/t.so --dim-bounds 'batch<=8, bacth<=2'");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("--dim-bounds bounds 'bacth', which no input's dims use; the inputs' "
                          "symbolic dims are: batch"),
            std::string::npos)
      << r.output;
  r = runKiln("compile " + model + " -o " + dir + "/t.so --dim-bounds 'batch<8'");
  EXPECT_EQ(r.exitCode, 2) << "a usage error: " << r.output;
}

TEST(CliRun, OutputsKeepTheModelsNames) {
  // Outputs that are a graph input or a constant are copies inside kiln; users still see the
  // names the model gives them. An output listed twice would make two arrays of one name, so it
  // is refused.
  std::string dir = scratchDir();
  auto save = [&](const std::string& path, const std::string& outputs) {
    std::string py =
        "import onnx, numpy as np; from onnx import helper as h, numpy_helper as nh, TensorProto "
        "as T; "
        "x = h.make_tensor_value_info('x', T.FLOAT, [2, 3]); "
        "outs = [h.make_tensor_value_info(n, T.FLOAT, s) for n, s in [" +
        outputs +
        "]]; "
        "g = h.make_graph([h.make_node('Relu', ['x'], ['y'])], 'g', [x], outs, "
        "[nh.from_array(np.arange(3, dtype=np.float32), 'w')]); "
        "onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', 13)]), '" +
        path + "')";
    ASSERT_EQ(std::system(("/usr/bin/python3 -c \"" + py + "\"").c_str()), 0);
  };
  save(dir + "/pass.onnx", "('x', [2, 3]), ('w', [3]), ('y', [2, 3])");
  save(dir + "/twice.onnx", "('y', [2, 3]), ('y', [2, 3])");
  CommandResult r = runKiln("compile " + dir + "/pass.onnx -o " + dir + "/p.so");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = runKiln("run " + dir + "/p.so --fill-mode ones --outputs " + dir + "/o.npz");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  cli::NamedArrays out = cli::readNpz(dir + "/o.npz");
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].first, "x");
  EXPECT_EQ(out[1].first, "w");
  EXPECT_EQ(out[2].first, "y");
  EXPECT_EQ(out[1].second.data<float>()[2], 2.0f);
  EXPECT_EQ(out[2].second.data<float>()[5], 1.0f);

  r = runKiln("compile " + dir + "/twice.onnx -o " + dir + "/t.so");
  EXPECT_EQ(r.exitCode, 3) << r.output;
  EXPECT_NE(r.output.find("graph output 'y' is listed twice"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kiln::test
