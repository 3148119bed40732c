// Pad with pads (or the constant) known only at run time: constant, edge, reflect and wrap modes.
#include "kiln/opdef/pad.h"

#include "context_view.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

// The source index along a dim of size N for output position I - BEFORE, or -1 (the constant).
int64_t sourceIndex(const std::string& mode, int64_t i, int64_t n) {
  if (i >= 0 && i < n) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return i < 0 ? 0 : n - 1;
  if (mode == "wrap") return ((i % n) + n) % n;
  if (n == 1) return 0;
  int64_t period = 2 * (n - 1);  // reflect: ... 2 1 | 0 1 2 ... n-1 | n-2 ...
  int64_t m = ((i % period) + period) % period;
  return m < n ? m : period - m;
}

}  // namespace

void runPad(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  const Shape& in = x.shape();
  opdef::PadSpec spec = opdef::padSpec(ContextView(ctx));  // as at compile time
  const std::string& mode = spec.mode;
  const std::vector<int64_t>& pads = *spec.pads;  // known: every input is, at run time
  double value = attrFloat(ctx, "value", 0.0);
  if (ctx.numInputs() > 2 && ctx.hasInput(2)) value = inputScalarDouble(ctx, 2, "constant_value");
  Shape out = opdef::padShape(ContextView(ctx), spec);
  NDArray y = ctx.output(0, out);
  size_t bytes = x.dtype().bytes();
  std::vector<char> fill(bytes, 0);
  visitNumeric(ctx, x.dtype(), [&](auto t) {
    auto v = static_cast<decltype(t)>(value);
    std::memcpy(fill.data(), &v, bytes);
  });
  std::vector<int64_t> strides = rowMajorStrides(in);
  const auto* src = static_cast<const char*>(x.data());
  auto* dst = static_cast<char*>(y.data());
  std::vector<int64_t> idx(out.size(), 0);
  for (int64_t e = 0; e < y.numel(); ++e) {
    int64_t s = 0;
    for (size_t d = 0; d < out.size() && s >= 0; ++d) {
      int64_t j = sourceIndex(mode, idx[d] - pads[d], in[d]);
      s = j < 0 ? -1 : s + j * strides[d];
    }
    std::memcpy(dst + static_cast<size_t>(e) * bytes,
                s < 0 ? fill.data() : src + static_cast<size_t>(s) * bytes, bytes);
    for (size_t d = out.size(); d-- > 0;) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace kiln::runtime::ops
