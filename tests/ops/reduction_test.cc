// Softmax, the Reduce ops and BatchNormalization end to end, against the reference.
#include <gtest/gtest.h>

#include <cmath>

#include "reference.h"

namespace kiln::optest {
namespace {

TEST(Softmax, EveryAxis) {
  checkAtAllLevels([](OpGraph& g) {
    uint32_t seed = 1;
    for (const Shape& s : {Shape{2, 3, 4, 5}, Shape{3, 1000}, Shape{7}, Shape{2, 70, 3}}) {
      auto rank = static_cast<int64_t>(s.size());
      for (int64_t axis = -1; axis < rank; ++axis) {
        HostTensor x = randomTensor(s, seed++, -4.0, 4.0);
        ir::Value* y = g.node("Softmax", {g.input(x)}, attrs({{"axis", axis}}));
        g.expect(y, refSoftmax(x, axis), strCat("Softmax ", runtime::shapeStr(s), " axis=", axis));
      }
    }
  });
}

TEST(LogSoftmax, EveryAxis) {
  checkAtAllLevels([](OpGraph& g) {
    uint32_t seed = 100;
    for (const Shape& s : {Shape{2, 3, 4, 5}, Shape{3, 500}}) {
      auto rank = static_cast<int64_t>(s.size());
      for (int64_t axis = -1; axis < rank; ++axis) {
        HostTensor x = randomTensor(s, seed++, -4.0, 4.0);
        HostTensor want = refUnary(refSoftmax(x, axis), [](double v) { return std::log(v); });
        g.expect(g.node("LogSoftmax", {g.input(x)}, attrs({{"axis", axis}})), want,
                 strCat("LogSoftmax ", runtime::shapeStr(s), " axis=", axis));
      }
    }
  });
}

TEST(Reduce, AxesAndKeepDims) {
  checkAtAllLevels([](OpGraph& g) {
    struct Case {
      Shape x;
      Dims axes;
      bool keep;
    };
    uint32_t seed = 10;
    for (Case c : {Case{{2, 3, 4, 5}, {3}, true}, Case{{2, 3, 4, 5}, {1}, false},
                   Case{{2, 3, 4, 5}, {2, 3}, true}, Case{{2, 3, 4, 5}, {0, 2}, false},
                   Case{{2, 3, 4, 5}, {}, true}, Case{{4, 300}, {-1}, true},
                   Case{{64, 7, 7}, {1, 2}, false}, Case{{5, 6}, {0}, true}}) {
      HostTensor x = randomTensor(c.x, seed++);
      std::string what = strCat(runtime::shapeStr(c.x), " axes=", c.axes.size(), " keep=", c.keep);
      int64_t keep = c.keep ? 1 : 0;
      // ReduceSum takes axes as an input (opset 13); ReduceMean/ReduceMax as an attribute.
      std::vector<ir::Value*> sumIns{g.input(x)};
      if (!c.axes.empty()) {
        std::vector<double> axes(c.axes.begin(), c.axes.end());
        sumIns.push_back(g.constant(ints({static_cast<int64_t>(c.axes.size())}, axes)));
      }
      g.expect(g.node("ReduceSum", sumIns, attrs({{"keepdims", keep}})),
               refReduce(x, c.axes, c.keep, ReduceKind::kSum), "ReduceSum " + what);
      ir::Attrs a = attrs({{"keepdims", keep}});
      if (!c.axes.empty()) a.set("axes", c.axes);
      ir::Value* in = g.input(x);
      g.expect(g.node("ReduceMean", {in}, a), refReduce(x, c.axes, c.keep, ReduceKind::kMean),
               "ReduceMean " + what);
      g.expect(g.node("ReduceMax", {in}, a), refReduce(x, c.axes, c.keep, ReduceKind::kMax),
               "ReduceMax " + what);
    }
  });
}

TEST(BatchNormalization, PerChannel) {
  checkAtAllLevels([](OpGraph& g) {
    for (const Shape& s : {Shape{2, 3, 5, 4}, Shape{4, 6}, Shape{1, 16, 9}}) {
      int64_t c = s[1];
      HostTensor x = randomTensor(s, 1);
      HostTensor scale = randomTensor({c}, 2), bias = randomTensor({c}, 3);
      HostTensor mean = randomTensor({c}, 4), var = randomTensor({c}, 5, 0.5, 2.0);
      ir::Value* y = g.node(
          "BatchNormalization",
          {g.input(x), g.constant(scale), g.constant(bias), g.constant(mean), g.constant(var)},
          attrs({{"epsilon", 1e-3}}));
      g.expect(y, refBatchNorm(x, scale, bias, mean, var, 1e-3),
               "BatchNormalization " + runtime::shapeStr(s));
    }
  });
}

}  // namespace
}  // namespace kiln::optest
