// Executors over tensors sized at run time: the same executor runs with shapes that grow and
// shrink, reports them, refuses what cannot work on such tensors (zero-copy outputs, reading an
// output before run) with a message, and stops on a bad run-time value naming the node.
#include <gtest/gtest.h>

#include "kiln/driver/compile.h"
#include "kiln/ir/op_registry.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "kiln/support/json.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

using runtime::DataType;
using runtime::Device;
using runtime::Module;
using runtime::NDArray;

// y = Reshape(x, shape) * 2 and z = NonZero(x): shape is a graph input, so y's shape is known
// only at run time; z's size depends on x's values.
std::string compileModel(const std::string& dir, const std::string& executor = "graph") {
  ir::Graph g;
  ir::Value* x = g.addInput("x", {DataType::float32(), {2, 6}});
  ir::Value* shape = g.addInput("shape", {DataType::int64(), {3}});
  auto node = [&](const std::string& op, std::vector<ir::Value*> in) {
    ir::Node* n = g.addNode(op, op, std::move(in), {op + "_out"});
    ir::inferTypes(*n);
    return n->outputs[0];
  };
  ir::Value* two = g.addConstant(
      "two", NDArray::fromBytes({}, DataType::float32(), std::vector<float>{2}.data(), 4));
  g.outputs().push_back(node("Mul", {node("Reshape", {x, shape}), two}));
  g.outputs().push_back(node("NonZero", {x}));
  driver::CompileOptions options;
  options.executor = executor;
  driver::compileGraph(g, dir + "/m.so", options);
  return dir + "/m.so";
}

NDArray int64s(const std::vector<int64_t>& v) {
  return NDArray::fromBytes({static_cast<int64_t>(v.size())}, DataType::int64(), v.data(),
                            v.size() * 8);
}

TEST(RunTimeShapes, OneExecutorRunsShapesThatGrowAndShrink) {
  Module ex = runtime::loadModule(compileModel(scratchDir()))["default"](Device::cpu()).asModule();
  std::vector<float> x(12);
  for (size_t i = 0; i < x.size(); ++i) x[i] = i % 3 == 0 ? 0.0f : static_cast<float>(i);
  ex["set_input"]("x", toArray(x, {2, 6}));
  int nonZero = 0;
  for (float v : x) nonZero += v != 0 ? 1 : 0;
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{3, 4, 1}, {1, -1, 2}, {12, 1, 1}, {2, 0, 1}}) {
    ex["set_input"]("shape", int64s(shape));
    ex["run"]();
    NDArray y = ex["get_output"](0).asNDArray();
    runtime::Shape want = shape;
    if (want[1] == -1) want[1] = 6;
    if (want[1] == 0) want[1] = 6;
    EXPECT_EQ(y.shape(), want);
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y.data<float>()[i], 2 * x[i]) << i;
    NDArray z = ex["get_output"](1).asNDArray();
    EXPECT_EQ(z.shape(), (runtime::Shape{2, nonZero}));
  }
  // Fewer non-zeros on the next run: the output shrinks with them.
  ex["set_input"]("x", toArray(std::vector<float>(12, 0.0f), {2, 6}));
  ex["run"]();
  EXPECT_EQ(ex["get_output"](1).asNDArray().shape(), (runtime::Shape{2, 0}));
}

TEST(RunTimeShapes, InfoShowsUnknownDimsAndMisuseIsRefused) {
  Module ex = runtime::loadModule(compileModel(scratchDir()))["default"](Device::cpu()).asModule();
  Json info = ex["get_output_info"]().asJson();
  EXPECT_EQ(info[0].at("shape").dump(), "[-1,-1,-1]") << info.dump();
  EXPECT_EQ(info[1].at("shape").dump(), "[2,-1]") << info.dump();
  std::string e = errorOf([&] { ex["get_output"](0); });
  EXPECT_NE(e.find("has no value before run()"), std::string::npos) << e;
  e = errorOf([&] { ex["set_output_zero_copy"](1, NDArray::empty({2, 3}, DataType::int64())); });
  EXPECT_NE(e.find("sized at run time"), std::string::npos) << e;
  ex["set_input"]("x", toArray(std::vector<float>(12, 1.0f), {2, 6}));
  ex["set_input"]("shape", int64s({5, 5, 1}));
  e = errorOf([&] { ex["run"](); });
  EXPECT_NE(e.find("Reshape"), std::string::npos) << e;
  EXPECT_NE(e.find("cannot reshape float32[2,6] (12 elements) to [5,5,1] (25 elements)"),
            std::string::npos)
      << e;
}

TEST(RunTimeShapes, TheAotExecutorRefusesNodesTheRuntimeExecutes) {
  std::string e = errorOf([&] { compileModel(scratchDir(), "aot"); });
  EXPECT_NE(e.find("--executor aot cannot run Reshape 'Reshape'"), std::string::npos) << e;
  EXPECT_NE(e.find("its shapes are known only at run time"), std::string::npos) << e;
}

TEST(RunTimeShapes, TheDebugExecutorShowsTheShapesOfTheRun) {
  Module lib = runtime::loadModule(compileModel(scratchDir()));
  Module ex = lib["debug_create"]("default", Device::cpu()).asModule();
  ex["set_input"]("x", toArray(std::vector<float>(12, 1.0f), {2, 6}));
  ex["set_input"]("shape", int64s({4, 3, 1}));
  Json rows = ex["profile"](int64_t{1}).asJson();
  bool sawReshape = false;
  for (const Json& row : rows.asArray()) {
    if (row.at("ops")[0].asString() != "Reshape") continue;
    sawReshape = true;
    EXPECT_EQ(row.at("outputs")[0].at("shape").dump(), "[4,3,1]") << row.dump();
  }
  EXPECT_TRUE(sawReshape) << rows.dump();
}

}  // namespace
}  // namespace kiln::test
