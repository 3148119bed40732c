// Ops that make a tensor whose size is an input value: ConstantOfShape and Range.
#include <cmath>

#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runConstantOfShape(RuntimeOpContext& ctx) {
  std::vector<int64_t> shape = inputInts(ctx, 0, "input");
  for (int64_t d : shape) {
    if (d < 0) fail(ctx, "shape ", listStr(shape), " has a negative dim");
  }
  NDArray y = ctx.output(0, shape);
  NDArray value = attrTensor(ctx, "value");
  size_t bytes = y.dtype().bytes();
  std::vector<char> fill(bytes, 0);
  if (value.defined()) {
    if (value.numel() != 1 || value.dtype() != y.dtype()) {
      fail(ctx, "value is ", describe(value.shape(), value.dtype()), "; expected one ",
           y.dtype().str());
    }
    std::memcpy(fill.data(), value.data(), bytes);
  }
  auto* dst = static_cast<char*>(y.data());
  for (int64_t e = 0; e < y.numel(); ++e) {
    std::memcpy(dst + static_cast<size_t>(e) * bytes, fill.data(), bytes);
  }
}

void runRange(RuntimeOpContext& ctx) {
  DataType dt = ctx.outputDtype(0);
  visitNumeric(ctx, dt, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, bool>) {
      fail(ctx, "bool is not a Range type");
    } else {
      T start = static_cast<T>(inputScalarDouble(ctx, 0, "start"));
      T limit = static_cast<T>(inputScalarDouble(ctx, 1, "limit"));
      T delta = static_cast<T>(inputScalarDouble(ctx, 2, "delta"));
      if (delta == T(0)) fail(ctx, "delta is 0");
      double count = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) /
                               static_cast<double>(delta));
      if (!(count < 1e12)) fail(ctx, "the range has ", count, " elements; too many");
      auto n = static_cast<int64_t>(std::max(0.0, count));
      NDArray y = ctx.output(0, {n});
      T* out = y.data<T>();
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(start + static_cast<T>(i) * delta);
    }
  });
}

}  // namespace kiln::runtime::ops
