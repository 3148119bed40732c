// Register-tile costs from the target's issue widths and latency; see tile_model.h.
#include "kiln/kernel/tile_model.h"

#include <algorithm>

namespace kiln::kernel {

double gemmStepCycles(const TargetModel& t, int mr, int nv) {
  double fma = static_cast<double>(mr) * nv / std::max(1, t.fmaPerCycle);
  double loads = static_cast<double>(mr + nv) / std::max(1, t.loadsPerCycle);
  return std::max({fma, loads, static_cast<double>(t.fmaLatency)});
}

int maxTileRows(const TargetModel& t, int nv) {
  if (t.broadcastFromMemory) return std::max(1, (t.vectorRegisters - nv - 1) / nv);
  return std::max(1, (t.vectorRegisters - nv - 2) / (nv + 1));  // two spare for addresses
}

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

}  // namespace kiln::kernel
