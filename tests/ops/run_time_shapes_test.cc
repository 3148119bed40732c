// Ops whose shapes are known only at run time, end to end: shape-like inputs (pads, repeats,
// shapes, starts, axes, K) that are graph inputs rather than constants, and ops whose output size
// depends on the data (NonZero, Compress, Unique). The runtime executes these nodes; each result
// is compared with the reference implementation on the same values.
#include <gtest/gtest.h>

#include <random>

#include "kiln/ir/op_registry.h"
#include "kiln/ir/reference_eval.h"
#include "reference.h"

namespace kiln::optest {
namespace {

Shape randomShape(std::mt19937& rng, size_t minRank, size_t maxRank, int64_t maxDim = 5) {
  Shape s(std::uniform_int_distribution<size_t>(minRank, maxRank)(rng));
  for (int64_t& d : s) d = std::uniform_int_distribution<int64_t>(1, maxDim)(rng);
  return s;
}

HostTensor scalar(double v, DataType dtype = DataType::int64()) { return ints({}, {v}, dtype); }

// The reference outputs of OP on INPUTS (constants), whatever the compiled graph's types say.
std::vector<HostTensor> reference(const std::string& op, const std::vector<HostTensor>& inputs,
                                  ir::Attrs a = {}, int numOutputs = 1) {
  ir::Graph scratch;
  std::vector<ir::Value*> ins;
  std::vector<runtime::NDArray> arrays;
  ins.reserve(inputs.size());
  arrays.reserve(inputs.size());
  for (const HostTensor& t : inputs) {
    arrays.push_back(toNDArray(t));
    ins.push_back(scratch.addConstant(scratch.uniqueName("c"), arrays.back()));
  }
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(numOutputs));
  for (int i = 0; i < numOutputs; ++i) names.push_back(scratch.uniqueName("y"));
  ir::Node* node = scratch.addNode(op, "ref", ins, names, std::move(a));
  ir::inferTypes(*node);
  std::vector<HostTensor> outs;
  for (const runtime::NDArray& o : ir::reference::evaluateNode(*node, arrays, 18)) {
    outs.push_back(fromNDArray(o));
  }
  return outs;
}

// Adds OP with every input a graph input, marks its outputs and expects the reference values.
void runTimeCase(OpGraph& g, const std::string& op, const std::vector<HostTensor>& inputs,
                 const ir::Attrs& a, const std::string& what, int numOutputs = 1) {
  std::vector<ir::Value*> ins;
  ins.reserve(inputs.size());
  for (const HostTensor& t : inputs) ins.push_back(g.input(t));
  std::vector<ir::Value*> outs = g.nodeOutputs(op, ins, a, numOutputs);
  std::vector<HostTensor> want = reference(op, inputs, a, numOutputs);
  for (size_t i = 0; i < outs.size(); ++i) {
    EXPECT_FALSE(outs[i]->type.isStatic() && op != "CumSum" && op != "TopK")
        << what << ": output " << i << " is " << outs[i]->type.str();
    g.expect(outs[i], want[i], strCat(what, " output ", i));
  }
}

TEST(RunTimeShapes, PadTileExpandWithShapeInputs) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(11);
    uint32_t seed = 1;
    for (const char* mode : {"constant", "edge", "reflect", "wrap"}) {
      Shape s = randomShape(rng, 1, 3);
      Dims pads(2 * s.size());
      for (size_t d = 0; d < pads.size(); ++d) {
        pads[d] = std::uniform_int_distribution<int64_t>(0, s[d % s.size()])(rng);
      }
      runTimeCase(g, "Pad",
                  {randomTensor(s, seed++), int64s(pads), scalar(1.5, DataType::float32())},
                  attrs({{"mode", std::string(mode)}}), strCat("Pad ", mode));
    }
    HostTensor x = randomTensor({2, 3, 4}, seed++);
    runTimeCase(g, "Pad", {x, int64s({1, 2}), scalar(0, DataType::float32()), int64s({-1})}, {},
                "Pad on axis -1");
    runTimeCase(g, "Tile", {randomTensor({2, 3}, seed++), int64s({2, 1})}, {}, "Tile");
    runTimeCase(g, "Expand", {randomTensor({3, 1}, seed++), int64s({2, 3, 4})}, {}, "Expand");
  });
}

TEST(RunTimeShapes, ReshapeSliceSplitSqueezeUnsqueeze) {
  checkAtAllLevels([](OpGraph& g) {
    uint32_t seed = 20;
    HostTensor x = randomTensor({2, 3, 4}, seed++);
    runTimeCase(g, "Reshape", {x, int64s({3, -1, 0})}, {}, "Reshape 0 and -1");
    runTimeCase(g, "Reshape", {x, int64s({24})}, {}, "Reshape flat");
    runTimeCase(g, "Slice", {x, int64s({1, -1}), int64s({100, 0}), int64s({2, 1}), int64s({2, -1})},
                {}, "Slice steps");
    runTimeCase(g, "Split", {x, int64s({1, 3})}, attrs({{"axis", int64_t{2}}}), "Split", 2);
    runTimeCase(g, "Unsqueeze", {x, int64s({0, -1})}, {}, "Unsqueeze");
    runTimeCase(g, "Squeeze", {randomTensor({1, 3, 1}, seed++), int64s({2})}, {}, "Squeeze");
    runTimeCase(g, "ReduceSum", {x, int64s({0, 2})}, attrs({{"keepdims", int64_t{0}}}),
                "ReduceSum");
    runTimeCase(g, "ReduceSum", {x, int64s({1})}, {}, "ReduceSum keepdims");
  });
}

TEST(RunTimeShapes, GeneratorsCumSumAndTopK) {
  checkAtAllLevels([](OpGraph& g) {
    runTimeCase(g, "ConstantOfShape", {int64s({2, 3})},
                attrs({{"value", toNDArray(ints({1}, {4}, DataType::int32()))}}),
                "ConstantOfShape");
    runTimeCase(g, "Range", {scalar(1), scalar(11), scalar(3)}, {}, "Range int64");
    runTimeCase(g, "Range",
                {scalar(0.5, DataType::float32()), scalar(-2, DataType::float32()),
                 scalar(-0.75, DataType::float32())},
                {}, "Range float32");
    HostTensor x = randomTensor({3, 5}, 40);
    runTimeCase(g, "CumSum", {x, scalar(1)},
                attrs({{"exclusive", int64_t{1}}, {"reverse", int64_t{1}}}), "CumSum");
    runTimeCase(g, "CumSum", {ints({4}, {1, 2, 3, 4}, DataType::int32()), scalar(0)}, {},
                "CumSum int32");
    runTimeCase(g, "TopK", {x, int64s({2})}, attrs({{"largest", int64_t{0}}}), "TopK", 2);
  });
}

TEST(RunTimeShapes, DataDependentOutputs) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = ints({3, 4}, {0, 1, 0, 2, 3, 0, 0, 4, 0, 0, 5, 0}, DataType::float32());
    runTimeCase(g, "NonZero", {x}, {}, "NonZero");
    HostTensor none = ints({2, 2}, {0, 0, 0, 0}, DataType::int32());
    runTimeCase(g, "NonZero", {none}, {}, "NonZero of zeros");
    HostTensor cond = ints({3}, {1, 0, 1}, DataType::boolean());
    runTimeCase(g, "Compress", {x, cond}, attrs({{"axis", int64_t{0}}}), "Compress axis 0");
    runTimeCase(g, "Compress", {x, cond}, {}, "Compress flat");
    HostTensor dup = ints({2, 4}, {2, 1, 2, 3, 1, 1, 3, 2}, DataType::int64());
    runTimeCase(g, "Unique", {dup}, {}, "Unique sorted", 4);
    runTimeCase(g, "Unique", {dup}, attrs({{"sorted", int64_t{0}}}), "Unique unsorted", 4);
    HostTensor rows = ints({3, 2}, {1, 2, 0, 1, 1, 2}, DataType::float32());
    runTimeCase(g, "Unique", {rows}, attrs({{"axis", int64_t{0}}}), "Unique rows", 4);
  });
}

// A computed tensor sized at run time flows through elementwise ops, then a runtime op hands a
// static result to compiled code: Range -> Mul -> Cos, and Shape(NonZero) -> Add.
TEST(RunTimeShapes, ChainsAndStaticResultsFeedCompiledKernels) {
  checkAtAllLevels([](OpGraph& g) {
    ir::Value* n = g.input(scalar(6, DataType::float32()));
    ir::Value* r = g.node("Range", {g.constant(scalar(0, DataType::float32())), n,
                                    g.constant(scalar(1, DataType::float32()))});
    ir::Value* c =
        g.node("Cos", {g.node("Mul", {r, g.constant(scalar(0.5, DataType::float32()))})});
    HostTensor want = zeros({6}, DataType::float32());
    for (int i = 0; i < 6; ++i) want.at(i) = std::cos(0.5 * i);
    g.expect(c, rounded(want), "cos(0.5 * range(n))");

    HostTensor x = ints({2, 3}, {0, 1, 1, 0, 1, 0}, DataType::float32());
    ir::Value* shape = g.node("Shape", {g.node("NonZero", {g.input(x)})});
    ASSERT_TRUE(shape->type.isStatic()) << shape->type.str();
    ir::Value* sum = g.node("Add", {shape, g.constant(int64s({10, 100}))});
    g.expect(sum, int64s({12, 103}), "Shape(NonZero) + constant");
  });
}

}  // namespace
}  // namespace kiln::optest
