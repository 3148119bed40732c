// The depthwise micro-kernel: channels in the vector lanes, one weight vector per tap shared by
// MR pixels, each pixel's input vector fused into its FMA; the MR accumulators stay in registers.
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
  std::vector<Stmt> taps;
  for (int64_t c = tile.firstCol; c < tile.firstCol + tile.cols; ++c) {
    Expr wv = var(names("w"), withLanes(ops.w->dtype, lanes));
    Expr wAt = ops.wBase + k * intImm(tile.wRowStep) + intImm(c * tile.wColStep);
    Expr xAt = ops.xBase + k * intImm(tile.xRowStep) + intImm(c * tile.xColStep);
    std::vector<Stmt> fmas;
    for (int r = 0; r < tile.mr; ++r) {
      Expr at = intImm(int64_t{r} * lanes) + vec;
      Expr x = load(ops.x, xAt + intImm(r * tile.xPixelStride) + vec);
      fmas.push_back(store(ops.acc, at, fma(x, wv, load(ops.acc, at))));
    }
    taps.push_back(let(wv, load(ops.w, wAt + vec), seq(fmas)));
  }
  return forLoop(k, intImm(0), tile.rows, ForKind::kSerial, seq(taps));
}

}  // namespace kiln::kernel::ukernel
