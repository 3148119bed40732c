// Shape inference of data-movement and shape ops: Flatten, Reshape, Squeeze, Unsqueeze, Expand,
// Shape, Concat, Gather, Transpose, Slice, Constant, ConstantOfShape, Range and the reductions.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <random>

#include "ir_test_util.h"

namespace kiln::ir {
namespace {

using testing::f32;
using testing::i64;
using testing::OneNode;

TEST(ReshapeInferTest, ZeroCopiesAndMinusOneInfers) {
  OneNode t;
  Value* x = t.in(f32({2, 3, 4}));
  EXPECT_EQ(t.infer("Reshape", {x, t.ints({0, -1})}), f32({2, 12}));
  EXPECT_EQ(t.infer("Reshape", {x, t.ints({-1})}), f32({24}));
  EXPECT_EQ(t.infer("Reshape", {x, t.ints({4, 0, 2})}), f32({4, 3, 2}));
  EXPECT_EQ(t.infer("Reshape", {x}, testing::attrs({{"shape", std::vector<int64_t>{6, 4}}})),
            f32({6, 4}));
  Value* empty = t.in(f32({0, 3}));
  EXPECT_EQ(
      t.infer("Reshape", {empty, t.ints({3, 0})}, testing::attrs({{"allowzero", int64_t{1}}})),
      f32({3, 0}));
}

TEST(ReshapeInferTest, Errors) {
  OneNode t;
  Value* x = t.in(f32({2, 3, 4}));
  std::string e = t.error("Reshape", {x, t.ints({5, -1})});
  EXPECT_NE(e.find("cannot reshape float32[2,3,4] (24 elements)"), std::string::npos) << e;
  e = t.error("Reshape", {x, t.ints({-1, -1})});
  EXPECT_NE(e.find("more than one -1"), std::string::npos) << e;
  e = t.error("Reshape", {x, t.ints({5, 5})});
  EXPECT_NE(e.find("to [5,5] (25 elements)"), std::string::npos) << e;
  e = t.error("Reshape", {x, t.ints({1, 1, 1, 0})});
  EXPECT_NE(e.find("has only 3 dims"), std::string::npos) << e;
  // A shape known only at run time: its length gives the rank.
  Value* dynamic = t.in(i64({2}));
  EXPECT_EQ(t.infer("Reshape", {x, dynamic}), f32({runtime::kDynamicDim, runtime::kDynamicDim}));
  e = t.error("Reshape", {x, t.in(i64({runtime::kDynamicDim}))});
  EXPECT_NE(e.find("its length is known only at run time"), std::string::npos) << e;
}

TEST(ReshapeInferTest, FlattenSqueezeUnsqueeze) {
  OneNode t;
  Value* x = t.in(f32({2, 3, 4, 5}));
  EXPECT_EQ(t.infer("Flatten", {x}), f32({2, 60}));
  EXPECT_EQ(t.infer("Flatten", {x}, testing::attrs({{"axis", int64_t{0}}})), f32({1, 120}));
  EXPECT_EQ(t.infer("Flatten", {x}, testing::attrs({{"axis", int64_t{4}}})), f32({120, 1}));
  EXPECT_EQ(t.infer("Flatten", {x}, testing::attrs({{"axis", int64_t{-2}}})), f32({6, 20}));

  Value* ones = t.in(f32({1, 3, 1, 2}));
  EXPECT_EQ(t.infer("Squeeze", {ones}), f32({3, 2}));
  EXPECT_EQ(t.infer("Squeeze", {ones, t.constant(testing::int64Array({0}, {}))}), f32({3, 2}));
  EXPECT_EQ(t.infer("Squeeze", {ones, t.ints({-2})}), f32({1, 3, 2}));
  EXPECT_EQ(t.infer("Squeeze", {ones}, testing::attrs({{"axes", std::vector<int64_t>{0}}})),
            f32({3, 1, 2}));
  std::string e = t.error("Squeeze", {ones, t.ints({1})});
  EXPECT_NE(e.find("cannot squeeze axis 1 of float32[1,3,1,2]: its size is 3"), std::string::npos)
      << e;

  Value* v = t.in(f32({3, 4}));
  EXPECT_EQ(t.infer("Unsqueeze", {v, t.ints({0, 3})}), f32({1, 3, 4, 1}));
  EXPECT_EQ(t.infer("Unsqueeze", {v, t.ints({-1})}), f32({3, 4, 1}));
  EXPECT_EQ(t.infer("Unsqueeze", {v}, testing::attrs({{"axes", std::vector<int64_t>{1}}})),
            f32({3, 1, 4}));
  EXPECT_EQ(t.infer("Unsqueeze", {t.in(f32({})), t.ints({0})}), f32({1}));
  e = t.error("Unsqueeze", {v, t.ints({0, -4})});
  EXPECT_NE(e.find("name axis 0 twice"), std::string::npos) << e;
  e = t.error("Unsqueeze", {v});
  EXPECT_NE(e.find("axes are required"), std::string::npos) << e;
  e = t.error("Unsqueeze", {v, t.ints({0})}, testing::attrs({{"axes", std::vector<int64_t>{0}}}));
  EXPECT_NE(e.find("both as an attribute"), std::string::npos) << e;
  EXPECT_EQ(t.infer("Unsqueeze", {v, t.in(i64({1}))}).shape.size(), v->type.shape.size() + 1);
  e = t.error("Squeeze", {t.in(f32({runtime::kDynamicDim, 1}))});
  EXPECT_NE(e.find("the output rank is unknown"), std::string::npos) << e;
}

TEST(ReshapeInferTest, Expand) {
  OneNode t;
  EXPECT_EQ(t.infer("Expand", {t.in(f32({3, 1})), t.ints({2, 1, 4})}), f32({2, 3, 4}));
  EXPECT_EQ(t.infer("Expand", {t.in(f32({3, 4})), t.ints({1})}), f32({3, 4}));
  std::string e = t.error("Expand", {t.in(f32({3, 2})), t.ints({3, 4})});
  EXPECT_NE(e.find("cannot be broadcast"), std::string::npos) << e;
}

TEST(ShapeOpsInferTest, ShapeStartEnd) {
  OneNode t;
  Value* x = t.in(f32({2, 3, 4, 5}));
  EXPECT_EQ(t.infer("Shape", {x}), i64({4}));
  EXPECT_EQ(t.infer("Shape", {x}, testing::attrs({{"start", int64_t{1}}})), i64({3}));
  EXPECT_EQ(t.infer("Shape", {x}, testing::attrs({{"start", int64_t{-1}}})), i64({1}));
  EXPECT_EQ(t.infer("Shape", {x}, testing::attrs({{"start", int64_t{-10}}, {"end", int64_t{2}}})),
            i64({2}));
  EXPECT_EQ(t.infer("Shape", {x}, testing::attrs({{"start", int64_t{3}}, {"end", int64_t{1}}})),
            i64({0}));
}

TEST(ShapeOpsInferTest, ConcatGatherTranspose) {
  OneNode t;
  EXPECT_EQ(t.infer("Concat", {t.in(f32({2, 3})), t.in(f32({2, 5})), t.in(f32({2, 1}))},
                    testing::attrs({{"axis", int64_t{-1}}})),
            f32({2, 9}));
  std::string e = t.error("Concat", {t.in(f32({2, 3})), t.in(f32({3, 3}))},
                          testing::attrs({{"axis", int64_t{1}}}));
  EXPECT_NE(e.find("expected equal dims except on axis 1"), std::string::npos) << e;
  e = t.error("Concat", {t.in(f32({2, 3}))});
  EXPECT_NE(e.find("axis attribute is required"), std::string::npos) << e;

  Value* data = t.in(f32({5, 6, 7}));
  EXPECT_EQ(t.infer("Gather", {data, t.in(i64({2, 3}))}, testing::attrs({{"axis", int64_t{1}}})),
            f32({5, 2, 3, 7}));
  EXPECT_EQ(t.infer("Gather", {data, t.constant(testing::int64Array({}, {-1}))}), f32({6, 7}));
  e = t.error("Gather", {data, t.ints({5})});
  EXPECT_NE(e.find("index 5 is out of range for axis 0 of size 5"), std::string::npos) << e;
  e = t.error("Gather", {data, t.in(f32({1}))});
  EXPECT_NE(e.find("expected int32 or int64"), std::string::npos) << e;
  // Indices computed at run time cannot be checked then: an empty axis is refused up front.
  e = t.error("Gather", {t.in(f32({5, 0})), t.in(i64({2}))},
              testing::attrs({{"axis", int64_t{1}}}));
  EXPECT_NE(e.find("of size 0"), std::string::npos) << e;
  EXPECT_EQ(t.infer("Gather", {t.in(f32({5, 0})), t.in(i64({0}))},
                    testing::attrs({{"axis", int64_t{1}}})),
            f32({5, 0}));

  EXPECT_EQ(t.infer("Transpose", {data}), f32({7, 6, 5}));
  EXPECT_EQ(t.infer("Transpose", {data}, testing::attrs({{"perm", std::vector<int64_t>{1, 2, 0}}})),
            f32({6, 7, 5}));
  e = t.error("Transpose", {data}, testing::attrs({{"perm", std::vector<int64_t>{0, 0, 1}}}));
  EXPECT_NE(e.find("perm [0,0,1] is not a permutation"), std::string::npos) << e;
}

// Slice length by enumerating indices after the spec's clamping (ONNX differs from Python for
// negative steps: a start before the beginning clamps to 0 instead of selecting nothing), plus
// ONNX Runtime's rule that an INT_MAX end means "to the end".
int64_t onnxSliceLength(int64_t start, int64_t end, int64_t step, int64_t dim) {
  if (dim == 0) return 0;
  bool toEnd = end == INT64_MAX || end == INT32_MAX;
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  int64_t count = 0;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = toEnd ? dim : std::clamp<int64_t>(end, 0, dim);
    for (int64_t i = start; i < end; i += step) ++count;
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = toEnd ? -1 : std::clamp<int64_t>(end, -1, dim - 1);
    for (int64_t i = start; i > end; i += step) ++count;
  }
  return count;
}

TEST(SliceInferTest, RandomRangesMatchSpecEnumeration) {
  std::mt19937 rng(5);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 1000; ++iter) {
    int64_t dim = pick(0, 9);
    int64_t step = pick(0, 1) ? pick(1, 4) : -pick(1, 4);
    int64_t start = pick(-12, 12);
    int64_t end = pick(-12, 12);
    if (pick(0, 9) == 0) end = pick(0, 1) ? INT64_MAX : INT64_MIN;
    OneNode t;
    TensorType out = t.infer("Slice", {t.in(f32({3, dim})), t.ints({start}), t.ints({end}),
                                       t.ints({1}), t.ints({step})});
    EXPECT_EQ(out, f32({3, onnxSliceLength(start, end, step, dim)}))
        << "dim " << dim << " [" << start << ":" << end << ":" << step << "]";
  }
}

TEST(SliceInferTest, NegativeStepClampsLikeOnnxNotPython) {
  OneNode t;
  Value* x = t.in(f32({4}));
  // numpy's a[-6::-4] on 4 elements is empty; ONNX clamps start -2 to 0 and selects a[0].
  EXPECT_EQ(t.infer("Slice", {x, t.ints({-6}), t.ints({INT64_MIN}), t.ints({0}), t.ints({-4})}),
            f32({1}));
  EXPECT_EQ(t.infer("Slice", {x, t.ints({3}), t.ints({INT64_MAX}), t.ints({0}), t.ints({-1})}),
            f32({4}));
  EXPECT_EQ(t.infer("Slice",
                    {t.in(f32({0})), t.ints({-1}), t.ints({INT64_MIN}), t.ints({0}), t.ints({-1})}),
            f32({0}));
}

TEST(SliceInferTest, FormsAndErrors) {
  OneNode t;
  Value* x = t.in(f32({10, 20}));
  EXPECT_EQ(t.infer("Slice", {x, t.ints({1, 2}), t.ints({5, -2})}), f32({4, 16}));
  EXPECT_EQ(t.infer("Slice", {x},
                    testing::attrs({{"starts", std::vector<int64_t>{0}},
                                    {"ends", std::vector<int64_t>{3}},
                                    {"axes", std::vector<int64_t>{1}}})),
            f32({10, 3}));
  std::string e = t.error("Slice", {x, t.ints({0}), t.ints({1}), t.ints({0}), t.ints({0})});
  EXPECT_NE(e.find("contain 0"), std::string::npos) << e;
  e = t.error("Slice", {x, t.ints({0, 1}), t.ints({1})});
  EXPECT_NE(e.find("differ in length"), std::string::npos) << e;
  EXPECT_EQ(t.infer("Slice", {x, t.in(i64({1})), t.ints({1})}),
            f32({runtime::kDynamicDim, runtime::kDynamicDim}));
}

TEST(GeneratorInferTest, ConstantForms) {
  OneNode t;
  EXPECT_EQ(t.infer("Constant", {},
                    testing::attrs({{"value", testing::int64Array({2, 2}, {1, 2, 3, 4})}})),
            i64({2, 2}));
  EXPECT_EQ(t.infer("Constant", {}, testing::attrs({{"value_float", 1.5}})), f32({}));
  EXPECT_EQ(
      t.infer("Constant", {}, testing::attrs({{"value_ints", std::vector<int64_t>{1, 2, 3}}})),
      i64({3}));
  EXPECT_EQ(t.infer("Constant", {}, testing::attrs({{"value_int", int64_t{4}}})), i64({}));
  std::string e = t.error("Constant", {});
  EXPECT_NE(e.find("has 0 value attributes"), std::string::npos) << e;
  e = t.error("Constant", {}, testing::attrs({{"value_string", std::string("a")}}));
  EXPECT_NE(e.find("'value_string' is not supported"), std::string::npos) << e;
}

TEST(GeneratorInferTest, ConstantOfShapeAndRange) {
  OneNode t;
  EXPECT_EQ(t.infer("ConstantOfShape", {t.ints({2, 3})}), f32({2, 3}));
  EXPECT_EQ(t.infer("ConstantOfShape", {t.ints({2})},
                    testing::attrs({{"value", testing::int64Array({1}, {7})}})),
            i64({2}));
  EXPECT_EQ(t.infer("ConstantOfShape", {t.constant(testing::int64Array({0}, {}))}), f32({}));
  EXPECT_EQ(t.infer("ConstantOfShape", {t.in(i64({2}))}),
            f32({runtime::kDynamicDim, runtime::kDynamicDim}));

  auto scalar = [&](int64_t v) { return t.constant(testing::int64Array({}, {v})); };
  auto fscalar = [&](float v) { return t.constant(testing::floatArray({}, {v})); };
  EXPECT_EQ(t.infer("Range", {scalar(0), scalar(10), scalar(3)}), i64({4}));
  EXPECT_EQ(t.infer("Range", {scalar(10), scalar(0), scalar(-3)}), i64({4}));
  EXPECT_EQ(t.infer("Range", {scalar(5), scalar(0), scalar(1)}), i64({0}));
  EXPECT_EQ(t.infer("Range", {fscalar(0.0f), fscalar(1.0f), fscalar(0.25f)}), f32({4}));
  std::string e = t.error("Range", {scalar(0), scalar(10), scalar(0)});
  EXPECT_NE(e.find("delta is 0"), std::string::npos) << e;
  EXPECT_EQ(t.infer("Range", {scalar(0), t.in(i64({})), scalar(1)}), i64({runtime::kDynamicDim}));
  e = t.error("Range", {scalar(0), t.in(f32({})), scalar(1)});
  EXPECT_NE(e.find("input 1 has type float32 but input 0 has type int64"), std::string::npos) << e;
}

TEST(ReduceInferTest, AxesKeepdimsAndForms) {
  OneNode t;
  Value* x = t.in(f32({2, 3, 4}));
  for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax"}) {
    EXPECT_EQ(t.infer(op, {x}), f32({1, 1, 1})) << op;
    EXPECT_EQ(t.infer(op, {x}, testing::attrs({{"keepdims", int64_t{0}}})), f32({})) << op;
    EXPECT_EQ(t.infer(op, {x}, testing::attrs({{"axes", std::vector<int64_t>{1, -1}}})),
              f32({2, 1, 1}))
        << op;
    EXPECT_EQ(t.infer(op, {x, t.ints({0})}, testing::attrs({{"keepdims", int64_t{0}}})),
              f32({3, 4}))
        << op;
    EXPECT_EQ(t.infer(op, {x, t.constant(testing::int64Array({0}, {}))},
                      testing::attrs({{"noop_with_empty_axes", int64_t{1}}})),
              f32({2, 3, 4}))
        << op;
  }
  std::string e = t.error("ReduceSum", {x}, testing::attrs({{"axes", std::vector<int64_t>{3}}}));
  EXPECT_NE(e.find("axes 3 is out of range for rank 3"), std::string::npos) << e;
}

TEST(RegistryTest, KnowsRequiredOpsAndClasses) {
  for (const char* op : {"Conv",
                         "Gemm",
                         "MatMul",
                         "Add",
                         "Sub",
                         "Mul",
                         "Div",
                         "Pow",
                         "Relu",
                         "LeakyRelu",
                         "Sigmoid",
                         "Tanh",
                         "Exp",
                         "Log",
                         "Sqrt",
                         "Neg",
                         "Abs",
                         "Erf",
                         "Clip",
                         "BatchNormalization",
                         "MaxPool",
                         "AveragePool",
                         "GlobalAveragePool",
                         "GlobalMaxPool",
                         "Flatten",
                         "Reshape",
                         "Concat",
                         "Softmax",
                         "Constant",
                         "Identity",
                         "Dropout",
                         "Shape",
                         "Gather",
                         "Unsqueeze",
                         "Squeeze",
                         "Transpose",
                         "Cast",
                         "Slice",
                         "ConstantOfShape",
                         "ReduceMean",
                         "ReduceSum",
                         "ReduceMax",
                         "Expand",
                         "Range",
                         "Equal",
                         "Where"}) {
    EXPECT_NE(findOp(op), nullptr) << op;
  }
  EXPECT_EQ(findOp("Conv")->opClass, OpClass::kComplex);
  EXPECT_EQ(findOp("Relu")->opClass, OpClass::kElementwise);
  EXPECT_EQ(findOp("Add")->opClass, OpClass::kBroadcast);
  EXPECT_EQ(findOp("Reshape")->opClass, OpClass::kInjective);
  EXPECT_EQ(findOp("ReduceMean")->opClass, OpClass::kReduction);
  EXPECT_STREQ(opClassName(OpClass::kInjective), "injective");
  EXPECT_EQ(findOp("NoSuchOp"), nullptr);
  std::vector<std::string> names = registeredOps();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

TEST(RegistryTest, ExtendedRegistriesAreSeparate) {
  std::shared_ptr<OpRegistry> ops = OpRegistry::builtin()->extended();
  ops->add({.name = "test.Double", .opClass = OpClass::kElementwise, .inferTypes = [](Node& n) {
              n.outputs[0]->type = n.inputs[0]->type;
            }});
  EXPECT_THROW(ops->add({.name = "Relu", .inferTypes = [](Node&) {}}), Error);
  EXPECT_EQ(ops->find("Relu"), OpRegistry::builtin()->find("Relu"));  // shared, not copied
  EXPECT_EQ(OpRegistry::builtin()->find("test.Double"), nullptr);

  OneNode extended;
  extended.g.setOps(ops);
  EXPECT_EQ(extended.infer("test.Double", {extended.in(f32({3}))}), f32({3}));
  OneNode plain;  // another graph, on the builtin registry, does not know the op
  std::string e = plain.error("test.Double", {plain.in(f32({3}))});
  EXPECT_NE(e.find("'test.Double' is not a known op"), std::string::npos) << e;
}

TEST(RegistryTest, GenericChecks) {
  OneNode t;
  std::string e = t.error("NoSuchOp", {t.in(f32({3}))});
  EXPECT_NE(e.find("'NoSuchOp' is not a known op"), std::string::npos) << e;
  e = t.error("Relu", {t.in(f32({3})), t.in(f32({3}))});
  EXPECT_NE(e.find("has 2 inputs; expected exactly 1"), std::string::npos) << e;
  e = t.error("Relu", {t.in(f32({3}))}, {}, 2);
  EXPECT_NE(e.find("has 2 outputs; expected exactly 1"), std::string::npos) << e;
  e = t.error("Add", {t.in(f32({3})), nullptr});
  EXPECT_NE(e.find("input 1 is required but was omitted"), std::string::npos) << e;
}

}  // namespace
}  // namespace kiln::ir
