// GridSample, RoiAlign and MaxUnpool: their attributes checked and their output dims.
#include "kiln/opdef/spatial.h"

namespace kiln::opdef {

GridSampleSpec gridSampleSpec(const OpView& op) {
  GridSampleSpec s{op.attrString("mode", "bilinear"),
                   op.attrString("padding_mode", "zeros"),
                   op.attrInt("align_corners", 0) != 0,
                   {}};
  if (s.mode != "bilinear" && s.mode != "nearest" && s.mode != "bicubic") {
    fail(op, "mode '", s.mode, "' is not known; expected bilinear, nearest or bicubic");
  }
  if (s.padding != "zeros" && s.padding != "border" && s.padding != "reflection") {
    fail(op, "padding_mode '", s.padding, "' is not known; expected zeros, border or reflection");
  }
  Dims x = op.inputShape(0), grid = op.inputShape(1);
  if (x.size() != 4 || grid.size() != 4 || knownAndDiffer(grid[0], x[0]) ||
      knownAndDiffer(grid[3], 2)) {
    fail(op, "X ", op.inputTypeStr(0), " and grid ", op.inputTypeStr(1),
         "; expected [N, C, H, W] and [N, H_out, W_out, 2]");
  }
  s.out = {x[0], x[1], grid[1], grid[2]};
  return s;
}

Dims roiAlignShape(const OpView& op) {
  Dims x = op.inputShape(0), rois = op.inputShape(1), batch = op.inputShape(2);
  if (x.size() != 4 || rois.size() != 2 || knownAndDiffer(rois[1], 4) || batch.size() != 1 ||
      knownAndDiffer(batch[0], rois[0])) {
    fail(op, "X ", op.inputTypeStr(0), ", rois ", op.inputTypeStr(1), " and batch_indices ",
         op.inputTypeStr(2), " do not match; expected [N,C,H,W], [R,4] and [R]");
  }
  std::string mode = op.attrString("mode", "avg");
  if (mode != "avg" && mode != "max")
    fail(op, "mode '", mode, "' is not known; expected avg or max");
  int64_t oh = op.attrInt("output_height", 1), ow = op.attrInt("output_width", 1);
  if (oh < 1 || ow < 1) {
    fail(op, "output_height ", oh, " and output_width ", ow, "; expected at least 1 each");
  }
  return {rois[0], x[1], oh, ow};
}

UnpoolShape maxUnpoolShape(const OpView& op) {
  Dims x = op.inputShape(0);
  if (x.size() < 3) fail(op, "X is ", op.inputTypeStr(0), "; expected N, C and spatial dims");
  size_t nd = x.size() - 2;
  std::vector<int64_t> kernel = op.attrInts("kernel_shape"), strides = op.attrInts("strides"),
                       pads = op.attrInts("pads");
  if (strides.empty()) strides.assign(nd, 1);
  if (pads.empty()) pads.assign(2 * nd, 0);
  if (kernel.size() != nd || strides.size() != nd || pads.size() != 2 * nd) {
    fail(op, "kernel_shape ", listStr(kernel), ", strides ", listStr(strides), " and pads ",
         listStr(pads), " do not match X ", op.inputTypeStr(0), "'s ", nd,
         " spatial dims; expected ", nd, ", ", nd, " and ", 2 * nd, " values");
  }
  UnpoolShape s;
  s.unpooled = {x[0], x[1]};
  for (size_t d = 0; d < nd; ++d) {
    int64_t in = x[d + 2];
    s.unpooled.push_back(in == kUnknownDim
                             ? kUnknownDim
                             : (in - 1) * strides[d] + kernel[d] - pads[d] - pads[d + nd]);
  }
  s.out = s.unpooled;
  if (!op.hasInput(2)) return s;
  int64_t length = listLength(op, 2, "output_shape");
  std::optional<std::vector<int64_t>> given = op.inputInts(2, "output_shape");
  if (!given) return {s.unpooled, Dims(static_cast<size_t>(length), kUnknownDim)};
  bool fits = given->size() == x.size() && !knownAndDiffer((*given)[0], x[0]) &&
              !knownAndDiffer((*given)[1], x[1]);
  for (size_t d = 2; fits && d < given->size(); ++d)
    fits = s.unpooled[d] == kUnknownDim || (*given)[d] >= s.unpooled[d];
  if (!fits) {
    fail(op, "output_shape ", listStr(*given), " does not hold X ", op.inputTypeStr(0),
         " unpooled (at least ", dimsStr(s.unpooled), ")");
  }
  s.out = *given;
  return s;
}

}  // namespace kiln::opdef
