// A model whose inputs have bounded symbolic dims: one library runs every size within the bounds;
// a size outside them, or two inputs that disagree on a symbol, is an error naming the dim, the
// symbol, the value and the bound.
#include <gtest/gtest.h>

#include "kiln/support/error.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

const char* kSymbolicAdd = R"(graph main(%x: float32[1,seq], %m: float32[1,seq]) dims "1<=seq<=16" {
  %y = Add(%x, %m) : float32[1,seq]
  return %y
})";

TEST(SymbolicDims, OneLibraryRunsEverySizeWithinTheBounds) {
  runtime::Module ex = executorOfText(kSymbolicAdd, "add");
  for (int64_t seq : {1, 5, 16}) {
    std::vector<float> x = randomVector(static_cast<size_t>(seq), 1);
    std::vector<float> m = randomVector(static_cast<size_t>(seq), 2);
    ex["set_input"]("x", toArray(x, {1, seq}));
    ex["set_input"]("m", toArray(m, {1, seq}));
    ex["run"]();
    runtime::NDArray y = ex["get_output"](0).asNDArray();
    ASSERT_EQ(y.shape(), (runtime::Shape{1, seq}));
    for (int64_t i = 0; i < seq; ++i) EXPECT_EQ(toVector(y)[i], x[i] + m[i]);
  }
}

TEST(SymbolicDims, ASizeOutsideItsBoundsNamesTheDimTheValueAndTheBound) {
  runtime::Module ex = executorOfText(kSymbolicAdd, "add");
  std::string msg = errorOf([&] { ex["set_input"]("x", toArray(randomVector(17, 1), {1, 17})); });
  EXPECT_NE(msg.find("set_input('x'): dim 1 is 'seq', 17 here, outside its bounds 1<=seq<=16"),
            std::string::npos)
      << msg;
  msg = errorOf([&] { ex["set_input"]("m", toArray({}, {1, 0})); });
  EXPECT_NE(msg.find("dim 1 is 'seq', 0 here, outside its bounds 1<=seq<=16"), std::string::npos)
      << msg;
}

TEST(SymbolicDims, InputsThatDisagreeOnASymbolAreNamedBoth) {
  runtime::Module ex = executorOfText(kSymbolicAdd, "add");
  ex["set_input"]("x", toArray(randomVector(5, 1), {1, 5}));
  ex["set_input"]("m", toArray(randomVector(7, 2), {1, 7}));
  std::string msg = errorOf([&] { ex["run"](); });
  EXPECT_NE(msg.find("input 'm' has 'seq' = 7 (dim 1), but input 'x' has it = 5"),
            std::string::npos)
      << msg;
}

TEST(SymbolicDims, TheInputInfoKeepsTheSymbolicDimsOpen) {
  runtime::Module ex = executorOfText(kSymbolicAdd, "add");
  Json info = ex["get_input_info"]().asJson();
  EXPECT_EQ(info[0].at("shape")[1].asInt(), -1);
}

}  // namespace
}  // namespace kiln::test
