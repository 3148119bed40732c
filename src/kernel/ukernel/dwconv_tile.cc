// The depthwise micro-kernel: channels in the vector lanes, one weight vector per tap shared by
// MR pixels, and each input vector loaded once per kernel row for all the pixels and taps that
// read it (neighbouring pixels share columns); the MR accumulators stay in registers.
#include <map>

#include "kiln/kernel/ukernel.h"
#include "kiln/support/error.h"

namespace kiln::kernel::ukernel {

using namespace tir;  // NOLINT(google-build-using-namespace)

std::string dwconvName(const DwconvTile& tile, const TargetModel& target) {
  return strCat("f32_dwconv_", tile.mr, "x", target.lanes, "_", target.isa);
}

Stmt dwconvTile(const DwconvTile& tile, const TargetModel& target, const DwconvOperands& ops,
                const NameFn& names) {
  int lanes = target.lanes;
  KILN_CHECK(tile.mr >= 1 && tile.cols >= 0, "bad dwconv tile ", tile.mr);
  KILN_CHECK(ops.acc->numel() >= int64_t{tile.mr} * lanes, "accumulator ", ops.acc->name,
             " is smaller than the ", dwconvName(tile, target), " tile");
  Expr vec = ramp(intImm(0), intImm(1), lanes);
  Expr k = var(names("k"));
  // Per kernel row: the row's weight vectors, then each distinct input vector loaded once and
  // used at once by every (pixel, tap) that reads it, so few input vectors are live at a time.
  std::vector<Expr> wVars;
  std::vector<Expr> wVals;
  for (int64_t c = tile.firstCol; c < tile.firstCol + tile.cols; ++c) {
    wVars.push_back(var(names("w"), withLanes(ops.w->dtype, lanes)));
    wVals.push_back(
        load(ops.w, ops.wBase + k * intImm(tile.wRowStep) + intImm(c * tile.wColStep) + vec));
  }
  std::map<int64_t, std::vector<std::pair<int, int64_t>>> readers;  // offset -> (pixel, tap)
  for (int r = 0; r < tile.mr; ++r) {
    for (int64_t c = tile.firstCol; c < tile.firstCol + tile.cols; ++c) {
      readers[r * tile.xPixelStride + c * tile.xColStep].push_back({r, c - tile.firstCol});
    }
  }
  Expr xRow = ops.xBase + k * intImm(tile.xRowStep);
  std::vector<Stmt> taps;
  for (const auto& [offset, uses] : readers) {
    Expr x = var(names("x"), withLanes(ops.x->dtype, lanes));
    std::vector<Stmt> fmas;
    for (const auto& [r, c] : uses) {
      Expr at = intImm(int64_t{r} * lanes) + vec;
      fmas.push_back(store(ops.acc, at, fma(x, wVars[static_cast<size_t>(c)], load(ops.acc, at))));
    }
    taps.push_back(let(x, load(ops.x, xRow + intImm(offset) + vec), seq(fmas)));
  }
  Stmt body = seq(taps);
  for (size_t c = wVars.size(); c-- > 0;) body = let(wVars[c], wVals[c], body);
  return forLoop(k, intImm(0), tile.rows, ForKind::kSerial, body);
}

}  // namespace kiln::kernel::ukernel
