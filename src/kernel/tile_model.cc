// Register-tile costs from the target's issue widths and latency; see tile_model.h.
#include "kiln/kernel/tile_model.h"

#include <algorithm>

namespace kiln::kernel {
namespace {

// Cycles per reduction step of an MR x NV-vector gemm tile: the larger of its FMA issue time, its
// load time (MR broadcasts and NV vector loads) and the FMA latency each accumulator waits for.
double gemmStepCycles(const TargetModel& t, int mr, int nv) {
  double fma = static_cast<double>(mr) * nv / std::max(1, t.fmaPerCycle);
  double loads = static_cast<double>(mr + nv) / std::max(1, t.loadsPerCycle);
  return std::max({fma, loads, static_cast<double>(t.fmaLatency)});
}

// The most rows a tile of NV vectors may have: MR*NV accumulators, NV B vectors and the broadcast
// A values (one register, or one per row without broadcasts from memory) in the vector
// registers.
int maxTileRows(const TargetModel& t, int nv) {
  if (t.broadcastFromMemory) return std::max(1, (t.vectorRegisters - nv - 1) / nv);
  return std::max(1, (t.vectorRegisters - nv - 2) / (nv + 1));  // two spare for addresses
}

// Cycles per kernel row of an MR-pixel depthwise tile: MR*KW FMAs, (MR-1)*SX + KW input vectors
// and KW weight vectors loaded, and the FMA latency.
double dwconvRowCycles(const TargetModel& t, int mr, int64_t kw, int64_t sx) {
  double fmas = static_cast<double>(mr * kw) / std::max(1, t.fmaPerCycle);
  double loads = static_cast<double>((mr - 1) * sx + 2 * kw) / std::max(1, t.loadsPerCycle);
  return std::max({fmas, loads, static_cast<double>(t.fmaLatency)});
}

}  // namespace

GemmTileChoice chooseGemmTile(const TargetModel& t, int64_t m, int64_t nb, int maxNv) {
  GemmTileChoice best;
  double bestCycles = -1;
  for (int nv = 1; nv <= std::min<int64_t>(maxNv, std::max<int64_t>(1, nb)); ++nv) {
    int rowsCap = std::min<int64_t>(maxTileRows(t, nv), std::max<int64_t>(1, m));
    for (int mr = 1; mr <= rowsCap; ++mr) {
      int64_t fullRows = m / mr, remRows = m % mr;
      int64_t fullCols = nb / nv, remCols = nb % nv;
      auto rowCost = [&](int vectors) {
        double c = static_cast<double>(fullRows) * gemmStepCycles(t, mr, vectors);
        if (remRows > 0) c += gemmStepCycles(t, static_cast<int>(remRows), vectors);
        return c;
      };
      double cycles = static_cast<double>(fullCols) * rowCost(nv);
      if (remCols > 0) cycles += rowCost(static_cast<int>(remCols));
      // Ties go to the larger tile: fewer tiles, less loop overhead.
      bool better = bestCycles < 0 || cycles < bestCycles - 1e-9 ||
                    (cycles <= bestCycles + 1e-9 && mr * nv > best.mr * best.nv);
      if (better) {
        bestCycles = cycles;
        best = {mr, nv};
      }
    }
  }
  return best;
}

int chooseDwconvRows(const TargetModel& t, int64_t width, int64_t kw, int64_t sx) {
  int best = 1;
  double bestCycles = -1;
  int64_t regs = std::max<int64_t>(1, t.vectorRegisters - kw - 2);
  int cap = static_cast<int>(
      std::clamp<int64_t>(std::min<int64_t>(16, regs), 1, std::max<int64_t>(1, width)));
  for (int mr = 1; mr <= cap; ++mr) {
    int64_t fullTiles = width / mr;
    double c = static_cast<double>(fullTiles) * dwconvRowCycles(t, mr, kw, sx);
    if (width % mr != 0) c += dwconvRowCycles(t, static_cast<int>(width % mr), kw, sx);
    if (bestCycles < 0 || c < bestCycles - 1e-9 || (c <= bestCycles + 1e-9 && mr > best)) {
      bestCycles = c;
      best = mr;
    }
  }
  return best;
}

}  // namespace kiln::kernel
