// Shape and dtype inference of elementwise, broadcasting and normalisation ops.
#include "ir_test_util.h"
#include "kiln/ir/dropout.h"

namespace kiln::ir {
namespace {

using testing::f32;
using testing::i64;
using testing::OneNode;

TEST(BinaryInferTest, MultidirectionalBroadcast) {
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow"}) {
    OneNode t;
    EXPECT_EQ(t.infer(op, {t.in(f32({2, 1, 4})), t.in(f32({3, 1}))}), f32({2, 3, 4})) << op;
    EXPECT_EQ(t.infer(op, {t.in(f32({})), t.in(f32({5}))}), f32({5})) << op;
    EXPECT_EQ(t.infer(op, {t.in(f32({0, 3})), t.in(f32({1, 3}))}), f32({0, 3})) << op;
    std::string e = t.error(op, {t.in(f32({2, 3})), t.in(f32({4}))});
    EXPECT_NE(e.find("shapes [2,3] and [4] cannot be broadcast"), std::string::npos) << e;
  }
  OneNode t;
  EXPECT_EQ(t.infer("Add", {t.in(i64({2})), t.in(i64({1}))}), i64({2}));
  std::string e = t.error("Add", {t.in(f32({2})), t.in(i64({2}))});
  EXPECT_NE(e.find("input 1 has type int64 but input 0 has type float32"), std::string::npos) << e;
  // Pow's exponent may have another type; the result has the base's.
  EXPECT_EQ(t.infer("Pow", {t.in(f32({2})), t.in(i64({2}))}), f32({2}));
}

TEST(BinaryInferTest, EqualAndWhere) {
  OneNode t;
  EXPECT_EQ(t.infer("Equal", {t.in(i64({3, 1})), t.in(i64({4}))}),
            (TensorType{DataType::boolean(), {3, 4}}));
  Value* cond = t.in({DataType::boolean(), {2, 1, 1}});
  EXPECT_EQ(t.infer("Where", {cond, t.in(f32({3, 1})), t.in(f32({4}))}), f32({2, 3, 4}));
  std::string e = t.error("Where", {t.in(f32({2})), t.in(f32({2})), t.in(f32({2}))});
  EXPECT_NE(e.find("condition (input 0) has type float32; expected bool"), std::string::npos) << e;
}

TEST(UnaryInferTest, SameTypeAndDtypeChecks) {
  for (const char* op : {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Neg", "Abs",
                         "Erf", "Identity", "Clip", "Softmax", "LogSoftmax"}) {
    OneNode t;
    EXPECT_EQ(t.infer(op, {t.in(f32({2, 3}))}), f32({2, 3})) << op;
  }
  OneNode t;
  EXPECT_EQ(t.infer("Relu", {t.in(i64({4}))}), i64({4}));
  EXPECT_EQ(t.infer("Identity", {t.in({DataType::boolean(), {4}})}),
            (TensorType{DataType::boolean(), {4}}));
  std::string e = t.error("Sigmoid", {t.in(i64({4}))});
  EXPECT_NE(e.find("input 0 has type int64; expected float16, float32"), std::string::npos) << e;
}

TEST(UnaryInferTest, ClipForms) {
  OneNode t;
  Value* x = t.in(f32({2, 3}));
  EXPECT_EQ(t.infer("Clip", {x, t.in(f32({})), t.in(f32({}))}), f32({2, 3}));
  EXPECT_EQ(t.infer("Clip", {x, nullptr, t.in(f32({}))}), f32({2, 3}));
  EXPECT_EQ(t.infer("Clip", {x}, testing::attrs({{"min", 0.0}, {"max", 6.0}})), f32({2, 3}));
  std::string e = t.error("Clip", {x, t.in(f32({}))}, testing::attrs({{"min", 0.0}}));
  EXPECT_NE(e.find("both as attributes"), std::string::npos) << e;
  e = t.error("Clip", {x, t.in(f32({2}))});
  EXPECT_NE(e.find("min is float32[2]; expected a scalar"), std::string::npos) << e;
  e = t.error("Clip", {x, t.in(i64({}))});
  EXPECT_NE(e.find("expected equal types"), std::string::npos) << e;
}

TEST(UnaryInferTest, CastUsesOnnxCodes) {
  OneNode t;
  Value* x = t.in(f32({2, 3}));
  EXPECT_EQ(t.infer("Cast", {x}, testing::attrs({{"to", int64_t{7}}})), i64({2, 3}));
  EXPECT_EQ(t.infer("Cast", {x}, testing::attrs({{"to", int64_t{9}}})),
            (TensorType{DataType::boolean(), {2, 3}}));
  EXPECT_EQ(t.infer("Cast", {x}, testing::attrs({{"to", int64_t{10}}})),
            (TensorType{DataType::float16(), {2, 3}}));
  EXPECT_EQ(t.infer("Cast", {x}, testing::attrs({{"to", std::string("INT32")}})),
            (TensorType{DataType::int32(), {2, 3}}));
  EXPECT_EQ(t.infer("Cast", {x}, testing::attrs({{"to", int64_t{8}}})),
            (TensorType{DataType::string(), {2, 3}}));
  std::string e = t.error("Cast", {x}, testing::attrs({{"to", int64_t{14}}}));
  EXPECT_NE(e.find("COMPLEX"), std::string::npos) << e;
  e = t.error("Cast", {x});
  EXPECT_NE(e.find("'to' attribute is required"), std::string::npos) << e;
}

TEST(UnaryInferTest, DropoutInference) {
  OneNode t;
  Value* x = t.in(f32({2, 3}));
  Node* n = t.add("Dropout", {x}, {}, 2);
  inferTypes(*n);
  EXPECT_EQ(n->outputs[0]->type, f32({2, 3}));
  EXPECT_EQ(n->outputs[1]->type, (TensorType{DataType::boolean(), {2, 3}}));
  Value* yes = t.constant(testing::makeArray<uint8_t>({}, DataType::boolean(), {1}));
  std::string e = t.error("Dropout", {x, nullptr, yes});
  EXPECT_NE(e.find("training_mode is true"), std::string::npos) << e;
  Value* no = t.constant(testing::makeArray<uint8_t>({}, DataType::boolean(), {0}));
  EXPECT_EQ(t.infer("Dropout", {x, t.in(f32({})), no}), f32({2, 3}));
  // Training mode with a ratio of 0 is the identity; a nonzero ratio is refused, and values
  // known only at run time leave the check to the runtime.
  Value* zero = t.constant(testing::makeArray<float>({}, DataType::float32(), {0.0f}));
  Value* half = t.constant(testing::makeArray<float>({}, DataType::float32(), {0.5f}));
  Node* identity = t.add("Dropout", {x, zero, yes}, {}, 2);
  inferTypes(*identity);
  EXPECT_EQ(dropoutForm(*identity), DropoutForm::kIdentity);
  e = t.error("Dropout", {x, half, yes});
  EXPECT_NE(e.find("training_mode is true with a nonzero ratio"), std::string::npos) << e;
  Node* later = t.add("Dropout", {x, t.in(f32({})), yes}, {}, 2);
  inferTypes(*later);
  EXPECT_EQ(dropoutForm(*later), DropoutForm::kRunTime);
  EXPECT_TRUE(runsInRuntime(*later));
  Node* unknownMode = t.add("Dropout", {x, half, t.in({DataType::boolean(), {}})}, {}, 2);
  inferTypes(*unknownMode);
  EXPECT_EQ(dropoutForm(*unknownMode), DropoutForm::kRunTime);
}

TEST(NormalizationInferTest, BatchNormalization) {
  OneNode t;
  Value* x = t.in(f32({2, 4, 5, 5}));
  std::vector<Value*> params;
  params.reserve(4);
  for (int i = 0; i < 4; ++i) params.push_back(t.in(f32({4})));
  std::vector<Value*> inputs = {x, params[0], params[1], params[2], params[3]};
  EXPECT_EQ(t.infer("BatchNormalization", inputs), f32({2, 4, 5, 5}));
  // Training mode: Y and the running mean and variance, computed by the runtime.
  Node* training =
      t.add("BatchNormalization", inputs, testing::attrs({{"training_mode", int64_t{1}}}), 3);
  inferTypes(*training);
  EXPECT_EQ(training->outputs[2]->type, f32({4}));
  EXPECT_TRUE(runsInRuntime(*training));
  std::string e = t.error("BatchNormalization", inputs, {}, 3);
  EXPECT_NE(e.find("expected at most 1"), std::string::npos) << e;
  inputs[3] = t.in(f32({5}));
  e = t.error("BatchNormalization", inputs);
  EXPECT_NE(e.find("input_mean (input 3) is float32[5]; expected [4]"), std::string::npos) << e;
}

TEST(NormalizationInferTest, SoftmaxAxesByOpset) {
  OneNode t;
  Value* x = t.in(f32({2, 3, 4}));
  Node* dflt = t.add("Softmax", {x});
  inferTypes(*dflt);
  EXPECT_EQ(softmaxAxes(*dflt, 13), (std::vector<int64_t>{2}));
  EXPECT_EQ(softmaxAxes(*dflt, 11), (std::vector<int64_t>{1, 2}));
  Node* axis0 = t.add("Softmax", {x}, testing::attrs({{"axis", int64_t{-3}}}));
  inferTypes(*axis0);
  EXPECT_EQ(softmaxAxes(*axis0, 13), (std::vector<int64_t>{0}));
  EXPECT_EQ(softmaxAxes(*axis0, 12), (std::vector<int64_t>{0, 1, 2}));
  std::string e = t.error("Softmax", {x}, testing::attrs({{"axis", int64_t{3}}}));
  EXPECT_NE(e.find("axis 3 is out of range for rank 3"), std::string::npos) << e;
}

}  // namespace
}  // namespace kiln::ir
