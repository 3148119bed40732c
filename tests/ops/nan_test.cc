// NaN in, NaN out: every operator built on max or min (Relu, Clip, Max, Min, the max pools,
// ReduceMax/Min, ArgMax/ArgMin), alone, fused and in the blocked layout, propagates NaN as ONNX,
// numpy and PyTorch do, instead of replacing it with a number.
#include <gtest/gtest.h>

#include <cmath>

#include "reference.h"

namespace kiln::optest {
namespace {

// Random values with NaN at every STRIDE-th element (from OFFSET).
HostTensor withNans(const Shape& shape, uint32_t seed, int64_t stride, int64_t offset = 0) {
  HostTensor t = randomTensor(shape, seed, -2.0, 2.0);
  for (int64_t i = offset; i < t.numel(); i += stride) t.at(i) = std::nan("");
  return t;
}

HostTensor mapped(const HostTensor& x, const std::function<double(double)>& f) {
  HostTensor y = x;
  for (double& v : y.data) v = f(v);
  return y;
}

TEST(Nan, ElementwiseMaxAndMinPropagateIt) {
  for (int opt : {0, 3}) {
    OpGraph g;
    HostTensor x = withNans({3, 37}, 1, 7), y = withNans({3, 37}, 2, 11, 3);
    ir::Value* xv = g.input(x);
    ir::Value* yv = g.input(y);
    g.expect(g.node("Relu", {xv}), mapped(x, [](double v) { return nanMax(v, 0.0); }), "Relu");
    HostTensor lo = ints({}, {-0.5}, DataType::float32()),
               hi = ints({}, {0.5}, DataType::float32());
    g.expect(g.node("Clip", {xv, g.constant(lo), g.constant(hi)}),
             mapped(x, [](double v) { return nanMin(nanMax(v, -0.5), 0.5); }), "Clip constant");
    g.expect(g.node("Clip", {xv, g.input(lo), g.input(hi)}),
             mapped(x, [](double v) { return nanMin(nanMax(v, -0.5), 0.5); }), "Clip runtime");
    g.expect(g.node("Max", {xv, yv}), refBinary(x, y, nanMax), "Max");
    g.expect(g.node("Min", {xv, yv}), refBinary(x, y, nanMin), "Min");
    g.expect(g.node("HardSigmoid", {xv}),
             mapped(x, [](double v) { return nanMax(0.0, nanMin(1.0, 0.2 * v + 0.5)); }),
             "HardSigmoid");
    g.check(opt);
  }
}

TEST(Nan, PoolsAndReductionsPropagateIt) {
  for (int opt : {0, 3}) {
    OpGraph g;
    HostTensor x = withNans({1, 5, 9, 9}, 3, 53);
    ir::Value* xv = g.input(x);
    WindowParams p{{3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, false};
    g.expect(g.node("MaxPool", {xv},
                    attrs({{"kernel_shape", Dims{3, 3}},
                           {"strides", Dims{2, 2}},
                           {"pads", Dims{1, 1, 1, 1}}})),
             refPool(x, p, PoolKind::kMax, false), "MaxPool");
    g.expect(g.node("GlobalMaxPool", {xv}), refGlobalPool(x, PoolKind::kMax), "GlobalMaxPool");
    for (const char* op : {"ReduceMax", "ReduceMin"}) {
      for (int64_t axis : {1, 3}) {
        g.expect(g.node(op, {xv}, attrs({{"axes", Dims{axis}}})), refReduceOp(x, op, {axis}, true),
                 strCat(op, " axis ", axis));
      }
    }
    g.check(opt);
  }
}

TEST(Nan, ArgMaxAndArgMinPointAtTheFirstOrLastNan) {
  OpGraph g;
  HostTensor x = withNans({4, 9}, 4, 11, 2);
  x.at(30) = std::nan("");  // row 3 has two NaNs
  ir::Value* xv = g.input(x);
  for (bool isMax : {true, false}) {
    for (bool last : {false, true}) {
      ir::Attrs a = attrs({{"axis", int64_t{1}}, {"select_last_index", int64_t{last ? 1 : 0}}});
      g.expect(g.node(isMax ? "ArgMax" : "ArgMin", {xv}, a), refArgReduce(x, isMax, 1, true, last),
               strCat(isMax ? "ArgMax" : "ArgMin", last ? " last" : " first"));
    }
  }
  g.check(3);
}

// A conv chain in the blocked layout: Conv -> Relu (fused epilogue) -> MaxPool (blocked).
TEST(Nan, BlockedConvReluMaxPoolChainPropagatesIt) {
  OpGraph g;
  HostTensor x = withNans({1, 16, 8, 8}, 5, 97);
  HostTensor w = randomTensor({32, 16, 3, 3}, 6);
  HostTensor conv = refConv(x, w, nullptr, WindowParams{{3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, 1);
  HostTensor relu = mapped(conv, [](double v) { return nanMax(v, 0.0); });
  WindowParams p{{2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, false};
  ir::Value* c = g.node("Conv", {g.input(x), g.constant(w)},
                        attrs({{"kernel_shape", Dims{3, 3}}, {"pads", Dims{1, 1, 1, 1}}}));
  ir::Value* pooled = g.node(
      "MaxPool", {g.node("Relu", {c})},
      attrs({{"kernel_shape", Dims{2, 2}}, {"strides", Dims{2, 2}}, {"pads", Dims{0, 0, 0, 0}}}));
  g.expect(pooled, refPool(relu, p, PoolKind::kMax, false), "conv-relu-maxpool", 1e-3);
  g.check(3);
}

}  // namespace
}  // namespace kiln::optest
