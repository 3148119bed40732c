// Data-movement and shape ops end to end: Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Slice,
// Gather, Concat, Expand, Shape, ConstantOfShape, Range, Trilu.
#include <gtest/gtest.h>

#include "reference.h"

namespace kiln::optest {
namespace {

TEST(Injective, ReshapeFamily) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({2, 3, 4}, 1);
    g.expect(g.node("Reshape", {g.input(x), g.constant(int64s({4, -1}))}), reshaped(x, {4, 6}),
             "Reshape");
    g.expect(g.node("Flatten", {g.input(x)}, attrs({{"axis", int64_t{2}}})), reshaped(x, {6, 4}),
             "Flatten axis=2");
    HostTensor s = randomTensor({3, 1, 4, 1}, 2);
    g.expect(g.node("Squeeze", {g.input(s), g.constant(int64s({1, 3}))}), reshaped(s, {3, 4}),
             "Squeeze");
    g.expect(g.node("Unsqueeze", {g.input(x), g.constant(int64s({0, 4}))}),
             reshaped(x, {1, 2, 3, 4, 1}), "Unsqueeze");
  });
}

TEST(Injective, Transpose) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({2, 3, 4, 5}, 1);
    for (Dims perm : {Dims{0, 2, 3, 1}, Dims{3, 2, 1, 0}, Dims{1, 0, 2, 3}}) {
      g.expect(g.node("Transpose", {g.input(x)}, attrs({{"perm", perm}})), refTranspose(x, perm),
               strCat("Transpose ", perm[0], perm[1], perm[2], perm[3]));
    }
    g.expect(g.node("Transpose", {g.input(x)}), refTranspose(x, {3, 2, 1, 0}), "Transpose default");
  });
}

TEST(Injective, Slice) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({6, 7, 8}, 1);
    struct Case {
      Dims starts, ends, axes, steps;
    };
    for (const Case& c : {Case{{1}, {4}, {0}, {1}}, Case{{0, 2}, {7, -1}, {1, 2}, {2, 1}},
                          Case{{-1}, {-100}, {2}, {-1}}, Case{{5, 6}, {0, 1}, {0, 1}, {-2, -3}},
                          Case{{2}, {1000}, {-1}, {3}}}) {
      ir::Value* y =
          g.node("Slice", {g.input(x), g.constant(int64s(c.starts)), g.constant(int64s(c.ends)),
                           g.constant(int64s(c.axes)), g.constant(int64s(c.steps))});
      g.expect(y, refSlice(x, c.starts, c.ends, c.axes, c.steps), "Slice");
    }
  });
}

TEST(Injective, Gather) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({5, 4, 3}, 1);
    HostTensor i0 = ints({2, 3}, {0, 4, -1, 2, 2, -5});
    HostTensor i1 = ints({2}, {3, 0}, DataType::int32());
    HostTensor scalar = ints({}, {-2});
    g.expect(g.node("Gather", {g.input(x), g.input(i0)}), refGather(x, i0, 0), "Gather axis 0");
    g.expect(g.node("Gather", {g.input(x), g.input(i1)}, attrs({{"axis", int64_t{1}}})),
             refGather(x, i1, 1), "Gather axis 1 int32");
    g.expect(g.node("Gather", {g.input(x), g.constant(scalar)}, attrs({{"axis", int64_t{-1}}})),
             refGather(x, scalar, -1), "Gather scalar index");
  });
}

TEST(Injective, Concat) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor a = randomTensor({2, 3, 4}, 1), b = randomTensor({2, 5, 4}, 2),
               c = randomTensor({2, 1, 4}, 3);
    g.expect(g.node("Concat", {g.input(a), g.input(b), g.input(c)}, attrs({{"axis", int64_t{1}}})),
             refConcat({&a, &b, &c}, 1), "Concat axis 1");
    HostTensor d = randomTensor({2, 3, 2}, 4);
    g.expect(g.node("Concat", {g.input(a), g.input(d)}, attrs({{"axis", int64_t{-1}}})),
             refConcat({&a, &d}, -1), "Concat axis -1");
  });
}

TEST(Injective, Expand) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({3, 1}, 1);
    g.expect(g.node("Expand", {g.input(x), g.constant(int64s({2, 3, 4}))}), refExpand(x, {2, 3, 4}),
             "Expand");
    HostTensor y = randomTensor({1, 4}, 2);
    g.expect(g.node("Expand", {g.input(y), g.constant(int64s({3, 1}))}), refExpand(y, {3, 1}),
             "Expand to bidirectional broadcast");
  });
}

TEST(Injective, ShapeConstantOfShapeRange) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({2, 3, 4}, 1);
    g.expect(g.node("Shape", {g.input(x)}), int64s({2, 3, 4}), "Shape");
    ir::Attrs value;
    value.set("value", toNDArray(ints({1}, {2.5}, DataType::float32())));
    HostTensor filled = zeros({2, 3});
    for (double& v : filled.data) v = 2.5;
    g.expect(g.node("ConstantOfShape", {g.constant(int64s({2, 3}))}, value), filled,
             "ConstantOfShape");
    HostTensor start = ints({}, {3}), limit = ints({}, {20}), delta = ints({}, {4});
    g.expect(g.node("Range", {g.constant(start), g.constant(limit), g.constant(delta)}),
             int64s({3, 7, 11, 15, 19}), "Range int64");
  });
}

// k as a runtime input (a scalar the kernel reads), as a constant and omitted; both triangles,
// square and wide and tall matrices, batched, float and integer.
TEST(Injective, Trilu) {
  checkAtAllLevels([](OpGraph& g) {
    uint32_t seed = 90;
    for (const Shape& s : {Shape{4, 4}, Shape{2, 3, 5}, Shape{2, 1, 6, 3}}) {
      for (int64_t upper : {0, 1}) {
        for (double k : {-7.0, -1.0, 0.0, 2.0, 9.0}) {
          HostTensor x = randomTensor(s, seed++);
          ir::Value* kv = g.input(ints({}, {k}));
          g.expect(g.node("Trilu", {g.input(x), kv}, attrs({{"upper", upper}})),
                   refTrilu(x, static_cast<int64_t>(k), upper != 0),
                   strCat("Trilu upper=", upper, " k=", k, " ", runtime::shapeStr(s)));
        }
        HostTensor x = randomTensor(s, seed++, -50, 50, DataType::int32());
        g.expect(g.node("Trilu", {g.input(x)}, attrs({{"upper", upper}})),
                 refTrilu(x, 0, upper != 0),
                 strCat("Trilu int32 upper=", upper, " ", runtime::shapeStr(s)));
        g.expect(
            g.node("Trilu", {g.input(x), g.constant(ints({}, {1}))}, attrs({{"upper", upper}})),
            refTrilu(x, 1, upper != 0),
            strCat("Trilu constant k upper=", upper, " ", runtime::shapeStr(s)));
      }
    }
  });
}

}  // namespace
}  // namespace kiln::optest
