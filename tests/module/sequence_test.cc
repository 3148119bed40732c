// Sequences and optionals compiled and run: models in the text IR that build, cut, read and carry
// lists of tensors, given sequence and optional inputs through set_input, checked against values
// worked out by hand here.
#include <gtest/gtest.h>

#include "kiln/driver/compile.h"
#include "kiln/ir/parser.h"
#include "kiln/ir/printer.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

using runtime::DataType;
using runtime::Device;
using runtime::Module;
using runtime::NDArray;
using runtime::TensorList;
using runtime::Value;

// x's rows cut into pieces of 2, the last piece read back, the first erased and the rest
// concatenated; the pieces themselves are an output too.
const char* kSplit = R"(graph split(%x: float32[6,2]) opset 16 {
  %two = const int64[] [2]
  %last = const int64[] [-1]
  %first = const int64[] [0]
  %s = SplitToSequence(%x, %two) {axis=0}
  %n = SequenceLength(%s)
  %a = SequenceAt(%s, %last)
  %e = SequenceErase(%s, %first)
  %c = ConcatFromSequence(%e) {axis=0}
  return %n, %a, %c, %s
}
)";

// t inserted into a sequence input at a position given at run time, then everything stacked
// along a new axis 0.
const char* kInsert =
    R"(graph insert(%seq: seq(float32[?]), %t: float32[2], %pos: int64[]) opset 16 {
  %ins = SequenceInsert(%seq, %t, %pos)
  %len = SequenceLength(%ins)
  %cat = ConcatFromSequence(%ins) {axis=0}
  return %ins, %len, %cat
}
)";

// Whether an optional holds a tensor, and the tensor doubled.
const char* kOptional = R"(graph optional(%o: opt(float32[3])) opset 16 {
  %h = OptionalHasElement(%o)
  %v = OptionalGetElement(%o)
  %two = const float32[] [2.0]
  %d = Mul(%v, %two)
  return %h, %d
}
)";

// A Loop that appends x * i in iteration i to a sequence it carries, from an empty one.
const char* kLoop = R"(graph collect(%m: int64[], %x: float32[3]) opset 16 {
  %empty = SequenceEmpty() {dtype=1}
  %seq = Loop[loop](%m, _, %empty, %x) {body=graph b(%i: int64[], %c: bool[], %s: seq(float32[*]), %x: float32[3]) opset 16 {
      %f = Cast(%i) {to=1}
      %v = Mul(%x, %f)
      %s2 = SequenceInsert(%s, %v)
      %cc = Identity(%c)
      return %cc, %s2
    }, kiln.captured=1}
  return %seq
}
)";

std::vector<float> rows(const std::vector<float>& x, size_t first, size_t count, size_t width) {
  return {x.begin() + static_cast<std::ptrdiff_t>(first * width),
          x.begin() + static_cast<std::ptrdiff_t>((first + count) * width)};
}

TEST(Sequences, TypesPrintAndParseBack) {
  for (const char* text : {kSplit, kInsert, kOptional, kLoop}) {
    std::string printed = ir::printGraph(*ir::parseGraph(text));
    EXPECT_EQ(ir::printGraph(*ir::parseGraph(printed)), printed);
  }
  EXPECT_EQ(ir::parseType("opt(seq(int64[*]))").str(), "opt(seq(int64[*]))");
  EXPECT_EQ(ir::parseType("seq(float32[?,3])").kind, runtime::ValueKind::kSequence);
  for (const char* bad : {"float32[*]", "seq(seq(float32[2]))", "opt(opt(float32[2]))"}) {
    EXPECT_THROW(ir::parseType(bad), Error) << bad;
  }
}

TEST(Sequences, SplitReadEraseAndConcatenate) {
  Module ex = executorOfText(kSplit, "split");
  std::vector<float> x = randomVector(12, 3);
  ex["set_input"]("x", toArray(x, {6, 2}));
  ex["run"]();
  EXPECT_EQ(ex["get_output"](0).asNDArray().data<int64_t>()[0], 3);
  EXPECT_EQ(toVector(ex["get_output"](1).asNDArray()), rows(x, 4, 2, 2));
  NDArray c = ex["get_output"](2).asNDArray();
  EXPECT_EQ(c.shape(), (runtime::Shape{4, 2}));
  EXPECT_EQ(toVector(c), rows(x, 2, 4, 2));
  TensorList s = ex["get_output"](3).asTensorList();
  ASSERT_EQ(s.items.size(), 3U);
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(toVector(s.items[k]), rows(x, 2 * k, 2, 2)) << k;
  Json info = ex["get_output_info"]().asJson();
  EXPECT_EQ(info[3].at("kind").asString(), "sequence");
  EXPECT_FALSE(info[0].contains("kind"));
}

TEST(Sequences, AnInputSequenceTakesAnInsertAtARunTimePosition) {
  Module ex = executorOfText(kInsert, "insert");
  TensorList seq{{toArray({1, 2}, {2}), toArray({3}, {1})}, false};
  ex["set_input"]("seq", seq);
  ex["set_input"]("t", toArray({7, 8}, {2}));
  for (int64_t pos : {1, -1, 0, 2}) {
    ex["set_input"]("pos", int64Scalar(pos));
    ex["run"]();
    std::vector<std::vector<float>> want = {{1, 2}, {3}};
    want.insert(want.begin() + (pos < 0 ? pos + 2 : pos), std::vector<float>{7, 8});
    TensorList got = ex["get_output"](0).asTensorList();
    ASSERT_EQ(got.items.size(), 3U) << pos;
    std::vector<float> flat;
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(toVector(got.items[k]), want[k]) << "pos " << pos << " tensor " << k;
      flat.insert(flat.end(), want[k].begin(), want[k].end());
    }
    EXPECT_EQ(ex["get_output"](1).asNDArray().data<int64_t>()[0], 3);
    EXPECT_EQ(toVector(ex["get_output"](2).asNDArray()), flat) << pos;
  }
  ex["set_input"]("pos", int64Scalar(3));
  std::string err = errorOf([&] { ex["run"](); });
  EXPECT_NE(err.find("position 3 is out of range for a sequence of 2 tensors; expected -2 to 2"),
            std::string::npos)
      << err;
}

TEST(Sequences, ASequenceInputIsCheckedAgainstItsType) {
  Module ex = executorOfText(kInsert, "insert_checked");
  std::string err = errorOf([&] { ex["set_input"]("seq", toArray({1, 2}, {2})); });
  EXPECT_NE(err.find("set_input('seq'): expected seq(float32[?]) (a TensorList), got NDArray"),
            std::string::npos)
      << err;
  NDArray ints = NDArray::empty({2}, DataType::int64());
  err = errorOf([&] { ex["set_input"]("seq", TensorList{{ints}, false}); });
  EXPECT_NE(err.find("expected seq(float32[?]), got a tensor int64[2] at position 0"),
            std::string::npos)
      << err;
  err = errorOf([&] { ex["set_input"]("seq", Value()); });
  EXPECT_NE(err.find("got none"), std::string::npos) << err;
  err = errorOf([&] {
    ex["set_input"]("seq", TensorList{{toArray({1, 2, 3, 4}, {2, 2})}, false});
  });
  EXPECT_NE(err.find("got a tensor float32[2,2]"), std::string::npos) << err;
}

TEST(Sequences, AnOptionalHoldsATensorOrNothing) {
  Module ex = executorOfText(kOptional, "optional");
  ex["set_input"]("o", toArray({1, -2, 3}, {3}));
  ex["run"]();
  EXPECT_TRUE(*ex["get_output"](0).asNDArray().data<bool>());
  EXPECT_EQ(toVector(ex["get_output"](1).asNDArray()), (std::vector<float>{2, -4, 6}));
  ex["set_input"]("o", Value());
  std::string err = errorOf([&] { ex["run"](); });
  EXPECT_NE(err.find("the optional input holds no value"), std::string::npos) << err;
  EXPECT_FALSE(*ex["get_output"](0).asNDArray().data<bool>());
}

TEST(Sequences, ALoopCarriesASequence) {
  Module ex = executorOfText(kLoop, "collect");
  std::vector<float> x = {1, -2, 0.5f};
  ex["set_input"]("x", toArray(x, {3}));
  for (int64_t m : {4, 0, 1}) {
    ex["set_input"]("m", int64Scalar(m));
    ex["run"]();
    TensorList seq = ex["get_output"](0).asTensorList();
    ASSERT_EQ(seq.items.size(), static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) {
      std::vector<float> want = x;
      for (float& v : want) v *= static_cast<float>(i);
      EXPECT_EQ(toVector(seq.items[static_cast<size_t>(i)]), want) << "m=" << m << " i=" << i;
    }
  }
}

// Optionals carried through a Loop that leave the body as the values they hold: a running sum
// (opt(float32[3]) in, float32[3] out) and a growing sequence (opt(seq) in, seq out).
const char* kOptionalCarry = R"(graph carry(%m: int64[], %x: float32[3]) opset 16 {
  %sum0 = Optional(%x)
  %empty = SequenceEmpty() {dtype=1}
  %seq0 = Optional(%empty)
  %sum, %seq = Loop[loop](%m, _, %sum0, %seq0, %x) {body=graph b(%i: int64[], %c: bool[], %o: opt(float32[3]), %os: opt(seq(float32[*])), %x: float32[3]) opset 16 {
      %v = OptionalGetElement(%o)
      %w = Add(%v, %x)
      %s = OptionalGetElement(%os)
      %s2 = SequenceInsert(%s, %w)
      %cc = Identity(%c)
      return %cc, %w, %s2
    }, kiln.captured=1}
  return %sum, %seq
}
)";

TEST(Sequences, AnOptionalMayLeaveALoopBodyAsWhatItHolds) {
  Module ex = executorOfText(kOptionalCarry, "optional_carry");
  std::vector<float> x = {1, -2, 0.5f};
  ex["set_input"]("x", toArray(x, {3}));
  for (int64_t m : {3, 0}) {
    ex["set_input"]("m", int64Scalar(m));
    ex["run"]();
    std::vector<float> want = x;
    for (float& v : want) v *= static_cast<float>(m + 1);
    EXPECT_EQ(toVector(ex["get_output"](0).asNDArray()), want) << m;
    TensorList seq = ex["get_output"](1).asTensorList();
    EXPECT_FALSE(seq.none);
    ASSERT_EQ(seq.items.size(), static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) {
      std::vector<float> sum = x;
      for (float& v : sum) v *= static_cast<float>(i + 2);
      EXPECT_EQ(toVector(seq.items[static_cast<size_t>(i)]), sum) << "m=" << m << " i=" << i;
    }
  }
}

// An empty optional carried into a body that leaves a tensor: after no iteration the output,
// typed as a tensor, has no value to give.
const char* kNoneCarry = R"(graph none_carry(%m: int64[], %x: float32[3]) opset 16 {
  %none = Optional() {type="float32[3]"}
  %out = Loop[loop](%m, _, %none, %x) {body=graph b(%i: int64[], %c: bool[], %o: opt(float32[3]), %x: float32[3]) opset 16 {
      %cc = Identity(%c)
      %y = Identity(%x)
      return %cc, %y
    }, kiln.captured=1}
  return %out
}
)";

TEST(Sequences, AnEmptyOptionalCannotBecomeALoopsTensorOutput) {
  Module ex = executorOfText(kNoneCarry, "none_carry");
  EXPECT_FALSE(ex["get_output_info"]().asJson()[0].contains("kind"));  // a tensor
  ex["set_input"]("x", toArray({1, 2, 3}, {3}));
  ex["set_input"]("m", int64Scalar(2));
  ex["run"]();
  EXPECT_EQ(toVector(ex["get_output"](0).asNDArray()), (std::vector<float>{1, 2, 3}));
  ex["set_input"]("m", int64Scalar(0));
  std::string err = errorOf([&] { ex["run"](); });
  EXPECT_NE(err.find("input 2 is an empty optional, but output 0 is a tensor"), std::string::npos)
      << err;
}

TEST(Sequences, ATensorOpRefusesASequence) {
  std::string err = errorOf([] {
    ir::parseGraph(R"(graph bad(%s: seq(float32[2])) opset 16 {
  %y = Relu(%s)
  return %y
})");
  });
  EXPECT_NE(err.find("Relu '"), std::string::npos) << err;
  EXPECT_NE(err.find("is seq(float32[2]); 'Relu' takes tensors only"), std::string::npos) << err;
}

TEST(Sequences, ReadingARankFromAnUnrankedSequenceIsRefused) {
  std::string err = errorOf([] {
    ir::parseGraph(R"(graph bad(%s: seq(float32[*])) opset 16 {
  %p = const int64[] [0]
  %y = SequenceAt(%s, %p)
  return %y
})");
  });
  EXPECT_NE(err.find("have no known rank"), std::string::npos) << err;
}

}  // namespace
}  // namespace kiln::test
