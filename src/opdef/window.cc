// Output sizes and effective pads of sliding windows, following ONNX (and ONNX Runtime's ceil_mode
// and SAME_* padding rules).
#include "kiln/opdef/window.h"

#include <algorithm>
#include <string>

namespace kiln::opdef {

namespace {

// Bounds that keep the window arithmetic far from int64 overflow; real models stay well below.
constexpr int64_t kMaxWindowParam = int64_t{1} << 30;
constexpr int64_t kMaxSpatialDim = int64_t{1} << 40;

std::vector<int64_t> intsOfSize(const OpView& op, const char* name, size_t size,
                                std::vector<int64_t> dflt, int64_t minValue) {
  std::vector<int64_t> v = op.hasAttr(name) ? op.attrInts(name) : std::move(dflt);
  if (v.size() != size) {
    fail(op, name, " ", listStr(v), " has ", v.size(), " values; expected ", size);
  }
  for (int64_t x : v) {
    if (x < minValue) fail(op, name, " ", listStr(v), " has a value below ", minValue);
    if (x > kMaxWindowParam) fail(op, name, " ", listStr(v), " has a value above 2^30");
  }
  return v;
}

}  // namespace

WindowGeometry windowGeometry(const OpView& op, const Dims& input, const Dims& kernel) {
  size_t n = input.size();
  KILN_CHECK(kernel.size() == n, "window kernel rank differs from input rank");
  WindowGeometry g;
  g.kernel = kernel;
  g.strides = intsOfSize(op, "strides", n, std::vector<int64_t>(n, 1), 1);
  g.dilations = intsOfSize(op, "dilations", n, std::vector<int64_t>(n, 1), 1);
  std::vector<int64_t> pads = intsOfSize(op, "pads", 2 * n, std::vector<int64_t>(2 * n, 0), 0);
  std::string autoPad = op.attrString("auto_pad", "NOTSET");
  g.ceilMode = op.attrInt("ceil_mode", 0) != 0;
  bool explicitPads = std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; });
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER") {
    fail(op, "auto_pad \"", autoPad, "\" is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  }
  if (autoPad != "NOTSET" && explicitPads) {
    fail(op, "pads ", listStr(pads), " cannot be combined with auto_pad \"", autoPad,
         "\"; expected auto_pad NOTSET or no pads");
  }
  for (size_t i = 0; i < n; ++i) {
    if (kernel[i] < 1 || kernel[i] > kMaxWindowParam) {
      fail(op, "kernel size ", kernel[i], " in spatial dim ", i, "; expected 1..2^30");
    }
    if (input[i] > kMaxSpatialDim) {
      fail(op, "spatial dim ", i, " of size ", input[i], " is larger than 2^40");
    }
    int64_t s = g.strides[i];
    int64_t dk = (kernel[i] - 1) * g.dilations[i] + 1;
    int64_t pb = pads[i];
    int64_t pe = pads[n + i];
    int64_t out;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      out = (input[i] + s - 1) / s;
      int64_t total = std::max<int64_t>((out - 1) * s + dk - input[i], 0);
      pb = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
    } else {
      int64_t extent = input[i] + pb + pe - dk;
      if (extent < 0) {
        fail(op, "window of size ", dk, " (kernel ", kernel[i], ", dilation ", g.dilations[i],
             ") is larger than the padded input ", input[i] + pb + pe, " in spatial dim ", i,
             " (input ", input[i], ", pads ", pb, "+", pe, ")");
      }
      out = extent / s + 1;
      if (g.ceilMode) {
        out = (extent + s - 1) / s + 1;
        if ((out - 1) * s >= input[i] + pb) --out;  // never start a window in the end padding
      }
    }
    g.padsBegin.push_back(pb);
    g.padsEnd.push_back(pe);
    g.output.push_back(out);
  }
  return g;
}

}  // namespace kiln::opdef
