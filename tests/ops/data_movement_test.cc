// Data-movement ops end to end: Pad (every mode, both forms, cropping), Tile, Split (all three
// ways of giving sizes), GatherElements, DepthToSpace/SpaceToDepth and Size, on random shapes.
#include <gtest/gtest.h>

#include <random>

#include "reference.h"

namespace kiln::optest {
namespace {

Shape randomShape(std::mt19937& rng, size_t minRank, size_t maxRank, int64_t maxDim = 6) {
  Shape s(std::uniform_int_distribution<size_t>(minRank, maxRank)(rng));
  for (int64_t& d : s) d = std::uniform_int_distribution<int64_t>(1, maxDim)(rng);
  return s;
}

TEST(DataMovement, PadEveryMode) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(5);
    uint32_t seed = 1;
    for (const char* mode : {"constant", "edge", "reflect", "wrap"}) {
      for (int k = 0; k < 3; ++k) {
        Shape s = randomShape(rng, 1, 4);
        Dims pads(2 * s.size());
        for (size_t d = 0; d < pads.size(); ++d) {
          int64_t dim = s[d % s.size()];
          // Constant mode may crop (negative pads); the others pad up to twice the dim.
          int64_t lo = std::string(mode) == "constant" ? -(dim - 1) / 2 : 0;
          pads[d] = std::uniform_int_distribution<int64_t>(lo, 2 * dim)(rng);
        }
        HostTensor x = randomTensor(s, seed++);
        double value = k == 1 ? 2.5 : 0.0;
        std::vector<ir::Value*> ins{g.input(x), g.constant(int64s(pads))};
        if (k == 1) ins.push_back(g.constant(ints({}, {value}, DataType::float32())));
        std::string what = strCat("Pad ", mode, " ", runtime::shapeStr(s));
        g.expect(g.node("Pad", ins, attrs({{"mode", std::string(mode)}})),
                 refPad(x, pads, mode, value), what);
        // The opset 2-10 form: pads and value as attributes.
        g.expect(g.node("Pad", {g.input(x)},
                        attrs({{"mode", std::string(mode)}, {"pads", pads}, {"value", value}})),
                 refPad(x, pads, mode, value), what + " (attributes)");
      }
    }
  });
}

TEST(DataMovement, PadSelectedAxesAndIntegers) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({3, 4, 5}, 20, -9, 9, DataType::int64());
    // Opset 18 axes: pad only the last axis (-1) by 2 before and 1 after.
    ir::Value* y =
        g.node("Pad", {g.input(x), g.constant(int64s({2, 1})),
                       g.constant(ints({}, {7}, DataType::int64())), g.constant(int64s({-1}))});
    g.expect(y, refPad(x, {0, 0, 2, 0, 0, 1}, "constant", 7), "Pad axes=[-1] int64");
  });
}

TEST(DataMovement, Tile) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(7);
    uint32_t seed = 30;
    for (int k = 0; k < 5; ++k) {
      Shape s = randomShape(rng, 1, 4);
      Dims reps;
      for (size_t d = 0; d < s.size(); ++d)
        reps.push_back(std::uniform_int_distribution<int64_t>(1, 3)(rng));
      HostTensor x = randomTensor(s, seed++);
      g.expect(g.node("Tile", {g.input(x), g.constant(int64s(reps))}), refTile(x, reps),
               strCat("Tile ", runtime::shapeStr(s)));
    }
  });
}

TEST(DataMovement, SplitAllForms) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(9);
    uint32_t seed = 40;
    for (int k = 0; k < 6; ++k) {
      Shape s = randomShape(rng, 1, 4);
      auto rank = static_cast<int64_t>(s.size());
      int64_t axis = std::uniform_int_distribution<int64_t>(-rank, rank - 1)(rng);
      auto a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
      s[a] = 6;
      HostTensor x = randomTensor(s, seed++);
      Dims sizes;
      ir::Attrs at = attrs({{"axis", axis}});
      std::vector<ir::Value*> ins{g.input(x)};
      if (k % 3 == 0) {
        sizes = {1, 0, 3, 2};  // as an input (opset 13), with an empty part
        ins.push_back(g.constant(int64s(sizes)));
      } else if (k % 3 == 1) {
        sizes = {4, 2};  // as an attribute (before opset 13)
        at.set("split", sizes);
      } else {
        sizes = {2, 2, 2};  // equal parts, one per output
      }
      auto outs = g.nodeOutputs("Split", ins, at, static_cast<int>(sizes.size()));
      std::vector<HostTensor> want = refSplit(x, axis, sizes);
      for (size_t i = 0; i < outs.size(); ++i) {
        g.expect(outs[i], want[i], strCat("Split ", runtime::shapeStr(s), " axis=", axis, " #", i));
      }
    }
    HostTensor x = randomTensor({7, 2}, seed++);  // opset 18 num_outputs: 3, 3, 1
    auto outs = g.nodeOutputs("Split", {g.input(x)}, attrs({{"num_outputs", int64_t{3}}}), 3);
    std::vector<HostTensor> want = refSplit(x, 0, {3, 3, 1});
    for (size_t i = 0; i < 3; ++i) g.expect(outs[i], want[i], strCat("Split num_outputs #", i));
  });
}

TEST(DataMovement, GatherElements) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(11);
    uint32_t seed = 60;
    for (int k = 0; k < 5; ++k) {
      Shape s = randomShape(rng, 1, 4);
      auto rank = static_cast<int64_t>(s.size());
      int64_t axis = std::uniform_int_distribution<int64_t>(-rank, rank - 1)(rng);
      auto a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
      Shape is = s;
      for (size_t d = 0; d < is.size(); ++d) {
        is[d] = d == a ? std::uniform_int_distribution<int64_t>(1, 8)(rng)
                       : std::uniform_int_distribution<int64_t>(1, s[d])(rng);
      }
      HostTensor x = randomTensor(s, seed++);
      // Negative indices count from the end.
      DataType it = k % 2 ? DataType::int32() : DataType::int64();
      HostTensor idx =
          randomTensor(is, seed++, static_cast<double>(-s[a]), static_cast<double>(s[a]), it);
      g.expect(g.node("GatherElements", {g.input(x), g.input(idx)}, attrs({{"axis", axis}})),
               refGatherElements(x, idx, axis),
               strCat("GatherElements ", runtime::shapeStr(s), " axis=", axis));
    }
  });
}

TEST(DataMovement, DepthToSpaceAndSpaceToDepth) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(13);
    uint32_t seed = 80;
    for (int64_t b : {2, 3}) {
      Shape s{std::uniform_int_distribution<int64_t>(1, 2)(rng),
              b * b * std::uniform_int_distribution<int64_t>(1, 3)(rng),
              std::uniform_int_distribution<int64_t>(1, 4)(rng),
              std::uniform_int_distribution<int64_t>(1, 4)(rng)};
      HostTensor x = randomTensor(s, seed++);
      for (const char* mode : {"DCR", "CRD"}) {
        g.expect(g.node("DepthToSpace", {g.input(x)},
                        attrs({{"blocksize", b}, {"mode", std::string(mode)}})),
                 refDepthToSpace(x, b, std::string(mode) == "CRD"),
                 strCat("DepthToSpace ", mode, " b=", b, " ", runtime::shapeStr(s)));
      }
      Shape t{s[0], s[1] / (b * b), s[2] * b, s[3] * b};
      HostTensor y = randomTensor(t, seed++);
      g.expect(g.node("SpaceToDepth", {g.input(y)}, attrs({{"blocksize", b}})),
               refSpaceToDepth(y, b), strCat("SpaceToDepth b=", b, " ", runtime::shapeStr(t)));
      // SpaceToDepth undoes DCR DepthToSpace.
      ir::Value* round =
          g.node("SpaceToDepth", {g.node("DepthToSpace", {g.input(x)}, attrs({{"blocksize", b}}))},
                 attrs({{"blocksize", b}}));
      g.expect(round, x, strCat("SpaceToDepth(DepthToSpace) b=", b));
    }
  });
}

TEST(DataMovement, SizeCountsElements) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(15);
    for (int k = 0; k < 3; ++k) {
      Shape s = randomShape(rng, 0, 4);
      HostTensor x = randomTensor(s, static_cast<uint32_t>(90 + k));
      g.expect(g.node("Size", {g.input(x)}), ints({}, {static_cast<double>(x.numel())}),
               strCat("Size ", runtime::shapeStr(s)));
    }
  });
}

}  // namespace
}  // namespace kiln::optest
