// Type inference of kiln's channel-blocked ops, which the convert-layout pass introduces: a tensor
// in layout NCHW[b]c is [N, ceil(C/b), spatial..., b], channel c at block c/b, lane c%b, with the
// channels past C (padding) finite. Weights are packed once, at compile time, in the order the
// micro-kernels read them.
#include "infer_util.h"
#include "kiln/ir/window.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

int64_t blocks(int64_t channels, int64_t block) { return (channels + block - 1) / block; }

int64_t blockOf(const Node& node) {
  int64_t b = node.attrs.getInt("block", 0);
  if (b < 1) fail(node, "block is ", b, "; expected a positive lane count");
  return b;
}

// [N, CB, spatial..., b] -> the spatial dims.
Shape blockedSpatial(const Node& node, const TensorType& x, int64_t block) {
  if (x.rank() < 4 || x.shape.back() != block) {
    fail(node, "input is ", x.str(), "; expected a channel-blocked tensor [N, C/", block,
         ", spatial..., ", block, "]");
  }
  return Shape(x.shape.begin() + 2, x.shape.end() - 1);
}

// kiln.LayoutTransform {to="blocked"|"plain", block, channels}: NCHW <-> NCHW[b]c, zero padding.
void inferLayoutTransform(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  int64_t b = blockOf(node);
  std::string to = node.attrs.getString("to", "");
  if (to == "blocked") {
    requireRankAtLeast(node, 0, 3, "N, C and spatial dims");
    Shape out = {x.shape[0], blocks(x.shape[1], b)};
    out.insert(out.end(), x.shape.begin() + 2, x.shape.end());
    out.push_back(b);
    setOutput(node, 0, {x.dtype, out});
    return;
  }
  if (to != "plain") fail(node, "to is '", to, "'; expected 'blocked' or 'plain'");
  Shape spatial = blockedSpatial(node, x, b);
  int64_t channels = node.attrs.getInt("channels", -1);
  if (channels < 0 || blocks(channels, b) != x.shape[1]) {
    fail(node, "channels is ", channels, "; expected a count that fills ", x.shape[1],
         " blocks of ", b);
  }
  Shape out = {x.shape[0], channels};
  out.insert(out.end(), spatial.begin(), spatial.end());
  setOutput(node, 0, {x.dtype, out});
}

// kiln.ConvBlocked(X, Wp, [Bp]) {kernel_shape, strides, pads, dilations, group, channels,
// in_channels, block, input_layout}: 2-D convolution to NCHW[b]c. input_layout "blocked": X is
// NCHW[b]c and Wp [OC/b, IC/b, KH, KW, b(in), b(out)]; "plain": X is NCHW (few channels) and Wp
// [OC/b, IC, KH, KW, b]; depthwise (group = in_channels = channels): X blocked and Wp
// [C/b, KH, KW, b]; grouped (whole blocks per group): Wp [OC/b, IC/group/b, KH, KW, b, b].
// Bp is [OC/b * b]. Pads are explicit (top, left, bottom, right).
void inferConvBlocked(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  const TensorType& w = inputType(node, 1, "W");
  requireFloat(node, 0);
  requireSameDtype(node, 0, 1);
  int64_t b = blockOf(node);
  int64_t oc = node.attrs.getInt("channels", 0), ic = node.attrs.getInt("in_channels", 0);
  int64_t group = node.attrs.getInt("group", 1);
  std::vector<int64_t> kernel = node.attrs.getInts("kernel_shape", {});
  if (oc < 1 || ic < 1 || kernel.size() != 2) {
    fail(node, "needs channels, in_channels >= 1 and a 2-D kernel_shape");
  }
  bool depthwise = group != 1 && group == ic && group == oc;
  bool grouped = group != 1 && !depthwise;
  if (group < 1 || (grouped && (ic % group != 0 || oc % group != 0 || (ic / group) % b != 0 ||
                                (oc / group) % b != 0))) {
    fail(node, "group ", group, " with ", ic, " input and ", oc,
         " output channels; expected 1, depthwise (group = channels), or groups of whole ", b,
         "-channel blocks");
  }
  bool plainInput = node.attrs.getString("input_layout", "blocked") == "plain";
  Shape spatial;
  if (plainInput) {
    if (x.rank() != 4 || x.shape[1] != ic) fail(node, "input is ", x.str(), "; expected NCHW");
    spatial = Shape(x.shape.begin() + 2, x.shape.end());
  } else {
    spatial = blockedSpatial(node, x, b);
    if (spatial.size() != 2 || x.shape[1] != blocks(ic, b)) {
      fail(node, "input is ", x.str(), "; expected [N, ", blocks(ic, b), ", H, W, ", b, "]");
    }
  }
  Shape want = depthwise ? Shape{blocks(oc, b), kernel[0], kernel[1], b}
               : plainInput
                   ? Shape{blocks(oc, b), ic, kernel[0], kernel[1], b}
                   : Shape{blocks(oc, b), blocks(ic / group, b), kernel[0], kernel[1], b, b};
  if (w.shape != want) fail(node, "packed weight is ", w.str(), "; expected ", listStr(want));
  if (hasInput(node, 2)) {
    const TensorType& bias = inputType(node, 2, "B");
    if (bias.shape != Shape{blocks(oc, b) * b}) {
      fail(node, "packed bias is ", bias.str(), "; expected [", blocks(oc, b) * b, "]");
    }
  }
  WindowGeometry g = resolveWindow(node, spatial, kernel);
  setOutput(node, 0, {x.dtype, {x.shape[0], blocks(oc, b), g.output[0], g.output[1], b}});
}

// kiln.PoolBlocked(X) {mode="max"|"avg", kernel_shape, strides, pads, dilations, ceil_mode,
// count_include_pad, block}: MaxPool/AveragePool (and the global pools, as a window covering the
// whole input) on NCHW[b]c.
void inferPoolBlocked(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  requireFloat(node, 0);
  int64_t b = blockOf(node);
  std::string mode = node.attrs.getString("mode", "");
  if (mode != "max" && mode != "avg") fail(node, "mode is '", mode, "'; expected max or avg");
  Shape spatial = blockedSpatial(node, x, b);
  std::vector<int64_t> kernel = node.attrs.getInts("kernel_shape", {});
  if (kernel.size() != spatial.size()) {
    fail(node, "kernel_shape ", listStr(kernel), " does not match input ", x.str());
  }
  WindowGeometry g = resolveWindow(node, spatial, kernel);
  Shape out = {x.shape[0], x.shape[1]};
  out.insert(out.end(), g.output.begin(), g.output.end());
  out.push_back(b);
  setOutput(node, 0, {x.dtype, out});
}

// kiln.MatMulPacked(A, Bp) {n, block}: A [..., K] times a constant B [K, N] packed as
// [ceil(N/b), K, b] (column block j holds columns j*b .. j*b+b-1, zero beyond N) -> [..., N].
void inferMatMulPacked(Node& node) {
  const TensorType& a = inputType(node, 0, "A");
  const TensorType& bp = inputType(node, 1, "B");
  requireFloat(node, 0);
  requireSameDtype(node, 0, 1);
  int64_t b = blockOf(node), n = node.attrs.getInt("n", 0);
  if (a.rank() < 1 || n < 1) fail(node, "needs A of rank >= 1 and n >= 1");
  Shape want = {blocks(n, b), a.shape.back(), b};
  if (a.shape.back() < 0) fail(node, "A is ", a.str(), "; its last dim K must be static");
  if (bp.shape != want) fail(node, "packed B is ", bp.str(), "; expected ", listStr(want));
  opdef::DimList out = a.dims();  // the leading dims may be sizes in symbols
  out.back() = n;
  setOutput(node, 0, TensorType::of(a.dtype, out));
}

}  // namespace

void registerBlockedLayoutOps(const OpAdder& add) {
  add({.name = "kiln.LayoutTransform",
       .opClass = OpClass::kInjective,
       .inferTypes = inferLayoutTransform,
       .sampleInputs = {0}});
  add({.name = "kiln.ConvBlocked",
       .opClass = OpClass::kComplex,
       .minInputs = 2,
       .maxInputs = 3,
       .inferTypes = inferConvBlocked,
       .sampleInputs = {0}});
  add({.name = "kiln.PoolBlocked",
       .opClass = OpClass::kComplex,
       .inferTypes = inferPoolBlocked,
       .sampleInputs = {0}});
  add({.name = "kiln.MatMulPacked",
       .opClass = OpClass::kComplex,
       .minInputs = 2,
       .maxInputs = 2,
       .inferTypes = inferMatMulPacked,
       .symbolicSizes = true,
       .symbolicKernel = true});
}

}  // namespace kiln::ir::ops
