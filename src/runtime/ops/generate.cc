// Ops that make a tensor whose size is an input value: ConstantOfShape and Range.
#include <type_traits>

#include "context_view.h"
#include "kiln/opdef/range.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runConstantOfShape(RuntimeOpContext& ctx) {
  NDArray y = ctx.output(0, opdef::knownDims(opdef::dimsFromInput(ContextView(ctx), 0, "input")));
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

// Range: src/opdef's length and values, so a run-time Range equals a folded one.
void runRange(RuntimeOpContext& ctx) {
  DataType dt = ctx.outputDtype(0);
  ContextView view(ctx);
  visitNumeric(ctx, dt, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
      fail(ctx, dt.str(), " is not a Range type; expected a float or signed integer type");
    } else {
      opdef::Dims shape = opdef::knownDims(
          opdef::rangeShape(view, std::is_floating_point_v<T>, std::is_same_v<T, float>));
      NDArray y = ctx.output(0, shape);
      if constexpr (std::is_floating_point_v<T>) {
        opdef::rangeFill(static_cast<T>(inputScalarDouble(ctx, 0, "start")),
                         static_cast<T>(inputScalarDouble(ctx, 2, "delta")), shape[0], y.data<T>());
      } else {
        opdef::rangeFill(static_cast<T>(inputScalarInt(ctx, 0, "start")),
                         static_cast<T>(inputScalarInt(ctx, 2, "delta")), shape[0], y.data<T>());
      }
    }
  });
}

}  // namespace kiln::runtime::ops
