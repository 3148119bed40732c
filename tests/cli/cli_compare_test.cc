// kiln compare: a compiled model checked node by node against the reference implementations.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cli_harness.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "kiln/support/json.h"

namespace kiln::test {
namespace {

// A small residual CNN as an ONNX file. ACTIVATION is the op of node 'act2' (the node a
// perturbed copy changes); every value keeps its name, so the two files differ in that node only.
std::string writeCnn(const std::string& dir, const std::string& name,
                     const std::string& activation) {
  std::string path = dir + "/" + name + ".onnx";
  std::string script = strCat(
      "import numpy as np, onnx\n"
      "from onnx import helper, numpy_helper, TensorProto\n"
      "r = np.random.default_rng(7)\n"
      "def w(name, *shape): return numpy_helper.from_array(\n"
      "    (r.standard_normal(shape) * 0.3).astype(np.float32), name)\n"
      "init = [w('w1', 16, 3, 3, 3), w('b1', 16), w('w2', 16, 16, 3, 3), w('b2', 16),\n"
      "        w('fc', 16, 10), w('fcb', 10)]\n"
      "n = helper.make_node\n"
      "nodes = [n('Conv', ['x', 'w1', 'b1'], ['c1'], name='conv1', pads=[1, 1, 1, 1]),\n"
      "         n('Relu', ['c1'], ['a1'], name='act1'),\n"
      "         n('Conv', ['a1', 'w2', 'b2'], ['c2'], name='conv2', pads=[1, 1, 1, 1]),\n"
      "         n('",
      activation,
      "', ['c2'], ['a2'], name='act2'),\n"
      "         n('Add', ['a2', 'a1'], ['s'], name='skip'),\n"
      "         n('MaxPool', ['s'], ['p'], name='pool', kernel_shape=[2, 2], strides=[2, 2]),\n"
      "         n('GlobalAveragePool', ['p'], ['g'], name='gap'),\n"
      "         n('Flatten', ['g'], ['f'], name='flat'),\n"
      "         n('MatMul', ['f', 'fc'], ['m'], name='fc'),\n"
      "         n('Add', ['m', 'fcb'], ['l'], name='bias'),\n"
      "         n('Softmax', ['l'], ['y'], name='softmax')]\n"
      "g = helper.make_graph(nodes, 'cnn',\n"
      "    [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 3, 20, 20])],\n"
      "    [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 10])], init)\n"
      "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]), '",
      path, "')\n");
  runPythonScript(dir, name, script);
  return path;
}

Json lastJson(const std::string& output) { return Json::parse(output.substr(output.find('{'))); }

TEST(CliCompare, AllNodesAgreeAtEveryOptLevel) {
  std::string dir = scratchDir();
  std::string model = writeCnn(dir, "cnn", "Relu");
  for (int level : {0, 3}) {
    CommandResult r = runKiln(strCat("compare ", model, " --opt-level ", level, " --json"));
    ASSERT_EQ(r.exitCode, 0) << r.output;
    Json j = lastJson(r.output);
    EXPECT_TRUE(j.at("agree").asBool()) << r.output;
    // Every model value some compiled node computes is compared, the output included.
    EXPECT_GE(j.at("compared").asInt(), level == 0 ? 11 : 4) << r.output;
    bool sawOutput = false;
    for (const Json& v : j.at("values").asArray()) sawOutput |= v.at("value").asString() == "y";
    EXPECT_TRUE(sawOutput) << r.output;
  }
  CommandResult text = runKiln(strCat("compare ", model));
  EXPECT_EQ(text.exitCode, 0) << text.output;
  EXPECT_NE(text.output.find("compared outputs agree"), std::string::npos) << text.output;
}

// The library computes act2 as Sigmoid where the model says Relu: compare must stop at the
// compiled node that holds it, and the nodes before it agree.
TEST(CliCompare, FindsThePerturbedKernel) {
  std::string dir = scratchDir();
  std::string model = writeCnn(dir, "cnn", "Relu");
  std::string perturbed = writeCnn(dir, "perturbed", "Sigmoid");
  for (int level : {0, 3}) {
    std::string so = strCat(dir, "/perturbed", level, ".so");
    CommandResult r = runKiln(strCat("compile ", perturbed, " -o ", so, " --opt-level ", level));
    ASSERT_EQ(r.exitCode, 0) << r.output;
    r = runKiln(strCat("compare ", model, " --library ", so, " --json"));
    EXPECT_EQ(r.exitCode, 1) << r.output;
    Json j = lastJson(r.output);
    EXPECT_FALSE(j.at("agree").asBool());
    const Json& d = j.at("first_divergence");
    EXPECT_GT(d.at("max_error").asDouble(), d.at("tolerance").asDouble());
    if (level == 0) {  // one node per operator: the divergence is act2's own output
      EXPECT_EQ(d.at("value").asString(), "a2") << r.output;
      EXPECT_EQ(d.at("ops").asString(), "Sigmoid") << r.output;
    } else {  // act2 is fused into conv2's node
      EXPECT_NE(d.at("ops").asString().find("Sigmoid"), std::string::npos) << r.output;
    }
    // conv1's node runs before it and agrees.
    const Json& first = j.at("values").asArray().at(0);
    EXPECT_TRUE(first.at("agrees").asBool()) << r.output;
    EXPECT_LT(first.at("kernel").asInt(), d.at("kernel").asInt()) << r.output;
  }
  CommandResult r = runKiln(strCat("compare ", model, " --library ", dir, "/perturbed0.so"));
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("first divergence: node 'act2' (Sigmoid), output 'a2'"),
            std::string::npos)
      << r.output;
}

TEST(CliCompare, UsesTheGivenInputsAndRefusesAnotherModelsLibrary) {
  std::string dir = scratchDir();
  std::string relu = nodeTestDir("test_relu");
  CommandResult r =
      runKiln(strCat("compare ", relu, "/model.onnx --inputs ", relu, "/test_data_set_0 --json"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(lastJson(r.output).at("agree").asBool()) << r.output;

  std::string so = dir + "/relu.so";
  ASSERT_EQ(runKiln(strCat("compile ", relu, "/model.onnx -o ", so)).exitCode, 0);
  std::string cnn = writeCnn(dir, "cnn", "Relu");
  r = runKiln(strCat("compare ", cnn, " --library ", so));
  EXPECT_EQ(r.exitCode, 4) << r.output;
  EXPECT_NE(r.output.find("--library must be compiled from"), std::string::npos) << r.output;
  r = runKiln(strCat("compare ", dir, "/missing.onnx"));
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("does not exist"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kiln::test
