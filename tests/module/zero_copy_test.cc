// Zero-copy I/O: executors read inputs from and write outputs to the caller's buffers once bound,
// after checking shape, dtype, alignment and writability.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/driver/compile.h"
#include "kiln/ir/op_registry.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

using runtime::DataType;
using runtime::Device;
using runtime::Module;
using runtime::NDArray;

// y = concat(relu(x), sigmoid(x)) along axis 0: the Concat is done in place, inside y's storage.
Module concatExecutor(const std::string& dir) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", {DataType::float32(), {4, 16}});
  auto node = [&](const std::string& op, std::vector<ir::Value*> in, ir::Attrs attrs = {}) {
    ir::Node* n = g.addNode(op, op, std::move(in), {op + "_out"}, std::move(attrs));
    ir::inferTypes(*n);
    return n->outputs[0];
  };
  ir::Attrs axis;
  axis.set("axis", int64_t{0});
  g.outputs().push_back(node("Concat", {node("Relu", {x}), node("Sigmoid", {x})}, axis));
  driver::compileGraph(g, dir + "/concat.so", {});
  return runtime::loadModule(dir + "/concat.so")["default"](Device::cpu()).asModule();
}

void checkConcat(const std::vector<float>& x, const NDArray& y) {
  ASSERT_EQ(y.numel(), 128);
  for (size_t i = 0; i < 64; ++i) {
    EXPECT_FLOAT_EQ(y.data<float>()[i], std::max(x[i], 0.0f)) << i;
    EXPECT_NEAR(y.data<float>()[64 + i], 1 / (1 + std::exp(-x[i])), 1e-6) << i;
  }
}

TEST(ZeroCopy, BoundBuffersAreReadAndWrittenInPlace) {
  Module ex = concatExecutor(scratchDir());
  NDArray in = NDArray::empty({4, 16}, DataType::float32());
  NDArray out = NDArray::empty({8, 16}, DataType::float32());
  ex["set_input_zero_copy"]("x", in);
  ex["set_output_zero_copy"](0, out);
  for (uint32_t round = 0; round < 2; ++round) {
    std::vector<float> x = randomVector(64, round);
    std::copy(x.begin(), x.end(), in.data<float>());  // no set_input: the buffer is the input
    ex["run"]();
    checkConcat(x, out);
    checkConcat(x, ex["get_output"](0).asNDArray());
  }
  // set_input copies into the executor's own storage again; the bound input is left alone.
  std::vector<float> x = randomVector(64, 7);
  ex["set_input"]("x", toArray(x, {4, 16}));
  std::fill(in.data<float>(), in.data<float>() + 64, 100.0f);
  ex["run"]();
  checkConcat(x, out);
}

TEST(ZeroCopy, WrongBuffersAreRefusedSayingWhy) {
  Module ex = concatExecutor(scratchDir());
  auto bindInput = [&](const NDArray& a) { ex["set_input_zero_copy"]("x", a); };
  auto bindOutput = [&](const NDArray& a) { ex["set_output_zero_copy"](0, a); };
  std::string msg = errorOf([&] { bindInput(NDArray::empty({4, 15}, DataType::float32())); });
  EXPECT_NE(msg.find("expected float32[4,16], got float32[4,15]"), std::string::npos) << msg;
  msg = errorOf([&] { bindOutput(NDArray::empty({8, 16}, DataType::int32())); });
  EXPECT_NE(msg.find("got int32[8,16]"), std::string::npos) << msg;
  NDArray big = NDArray::empty({65}, DataType::float32());
  msg = errorOf([&] { bindInput(big.view({4, 16}, DataType::float32(), 4)); });
  EXPECT_NE(msg.find("is not 64-byte aligned"), std::string::npos) << msg;
  auto owner = std::make_shared<NDArray>(NDArray::empty({8, 16}, DataType::float32()));
  NDArray readOnly = NDArray::fromExternal({8, 16}, DataType::float32(), owner->data(),
                                           owner->nbytes(), owner, /*readOnly=*/true);
  msg = errorOf([&] { bindOutput(readOnly); });
  EXPECT_NE(msg.find("read-only"), std::string::npos) << msg;
  msg = errorOf([&] { ex["set_input_zero_copy"]("nope", readOnly); });
  EXPECT_NE(msg.find("has no input named 'nope'"), std::string::npos) << msg;
  msg = errorOf([&] { ex["set_output_zero_copy"](3, readOnly); });
  EXPECT_NE(msg.find("out of range"), std::string::npos) << msg;
}

}  // namespace
}  // namespace kiln::test
