// MaxPool and AveragePool of any rank and element type, with MaxPool's Indices output: the forms
// kiln compiles no kernel for. Windows as ONNX defines them: kernel, strides, dilations, explicit
// or automatic pads, floor or ceil mode (a window never starts in the end padding).
#include <cmath>
#include <limits>

#include "context_view.h"
#include "kiln/opdef/window.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

// The window of the node over IN's spatial dims (src/opdef's rule, as at compile time).
opdef::WindowGeometry windowOf(const RuntimeOpContext& ctx, const Shape& in) {
  Shape spatial(in.begin() + 2, in.end());
  std::vector<int64_t> kernel = attrInts(ctx, "kernel_shape");
  if (kernel.size() != spatial.size()) {
    fail(ctx, "kernel_shape ", listStr(kernel), " has ", kernel.size(), " values; expected ",
         spatial.size());
  }
  return opdef::windowGeometry(ContextView(ctx), spatial, kernel);
}

void pool(RuntimeOpContext& ctx, bool isMax) {
  const NDArray& x = ctx.input(0);
  const Shape& in = x.shape();
  if (in.size() < 3) fail(ctx, "X is ", shapeStr(in), "; expected N, C and spatial dims");
  opdef::WindowGeometry w = windowOf(ctx, in);
  size_t nd = in.size() - 2;
  Shape outShape = {in[0], in[1]};
  outShape.insert(outShape.end(), w.output.begin(), w.output.end());
  NDArray y = ctx.output(0, outShape);
  bool wantIndices = isMax && ctx.numOutputs() > 1;
  NDArray idx = wantIndices ? ctx.output(1, outShape) : NDArray();
  bool columnMajor = attrInt(ctx, "storage_order", 0) != 0;
  bool includePad = attrInt(ctx, "count_include_pad", 0) != 0;
  int64_t plane = 1;
  for (size_t d = 0; d < nd; ++d) plane *= in[d + 2];
  Shape kernel(w.kernel.begin(), w.kernel.end());
  visitNumeric(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      fail(ctx, "bool is not a pooling type");
    } else {
      const T* src = static_cast<const T*>(x.data());
      T* dst = static_cast<T*>(y.data());
      int64_t count = shapeNumel(outShape);
      std::vector<int64_t> o(outShape.size(), 0), k(nd, 0);
      for (int64_t e = 0; e < count; ++e) {
        int64_t base = (o[0] * in[1] + o[1]) * plane;
        double best = -std::numeric_limits<double>::infinity(), sum = 0;
        int64_t bestAt = -1, valid = 0;
        std::fill(k.begin(), k.end(), 0);
        for (int64_t t = 0, taps = shapeNumel(kernel); t < taps; ++t) {
          int64_t flat = 0, colFlat = 0, colStride = 1;
          bool inside = true;
          for (size_t d = 0; d < nd; ++d) {
            int64_t p = o[d + 2] * w.strides[d] - w.padsBegin[d] + k[d] * w.dilations[d];
            inside = inside && p >= 0 && p < in[d + 2];
            flat = flat * in[d + 2] + p;
            colFlat += p * colStride;
            colStride *= in[d + 2];
          }
          if (inside) {
            auto v = static_cast<double>(src[base + flat]);
            if (v > best || bestAt < 0) {
              best = v;
              bestAt = base + (columnMajor ? colFlat : flat);
            }
            sum += v;
            ++valid;
          }
          for (size_t d = nd; d-- > 0;) {
            if (++k[d] < w.kernel[d]) break;
            k[d] = 0;
          }
        }
        if (isMax) {
          dst[e] = static_cast<T>(bestAt < 0 ? 0.0 : best);  // a window all in the padding: 0
          if (wantIndices) idx.data<int64_t>()[e] = bestAt;
        } else {
          double n =
              includePad ? static_cast<double>(shapeNumel(kernel)) : static_cast<double>(valid);
          dst[e] = static_cast<T>(n > 0 ? sum / n : 0.0);
        }
        for (size_t d = outShape.size(); d-- > 0;) {
          if (++o[d] < outShape[d]) break;
          o[d] = 0;
        }
      }
    }
  });
}

}  // namespace

void runMaxPool(RuntimeOpContext& ctx) { pool(ctx, true); }
void runAveragePool(RuntimeOpContext& ctx) { pool(ctx, false); }

}  // namespace kiln::runtime::ops
