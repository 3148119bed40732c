// The analytical model behind the default register tiles: how many cycles a micro-kernel tile
// spends per reduction step on a target, and the tile that covers a problem fastest. Nothing is
// measured at compile time.
#pragma once

#include <cstdint>

#include "kiln/kernel/target_model.h"

namespace kiln::kernel {

// Cycles per reduction step of an MR x NV-vector gemm tile: the larger of its FMA issue time, its
// load time (MR broadcasts and NV vector loads) and the FMA latency each accumulator waits for.
double gemmStepCycles(const TargetModel& t, int mr, int nv);

// The most rows a tile of NV vectors may have: MR*NV accumulators, NV B vectors and the broadcast
// A values (one register, or one per row without broadcasts from memory) in the vector
// registers.
int maxTileRows(const TargetModel& t, int nv);

struct GemmTileChoice {
  int mr = 1;
  int nv = 1;
};

// The tile covering M rows x NB column vectors in the fewest cycles per reduction step, counting
// the smaller tiles that cover the remainders (a remainder of rows runs with fewer rows, one of
// column vectors with fewer vectors). NV is at most MAX_NV.
GemmTileChoice chooseGemmTile(const TargetModel& t, int64_t m, int64_t nb, int maxNv = 4);

}  // namespace kiln::kernel
