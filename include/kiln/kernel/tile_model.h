// The analytical model behind the default register tiles: how many cycles a micro-kernel tile
// spends per reduction step on a target, and the tile that covers a problem fastest. Nothing is
// measured at compile time.
#pragma once

#include <cstdint>

#include "kiln/kernel/target_model.h"

namespace kiln::kernel {

struct GemmTileChoice {
  int mr = 1;
  int nv = 1;
};

// The tile covering M rows x NB column vectors in the fewest cycles per reduction step, counting
// the smaller tiles that cover the remainders (a remainder of rows runs with fewer rows, one of
// column vectors with fewer vectors). NV is at most MAX_NV.
GemmTileChoice chooseGemmTile(const TargetModel& t, int64_t m, int64_t nb, int maxNv = 4);

// Pixels per depthwise tile for a row of WIDTH interior pixels, kernel width KW and stride SX,
// from the cycles of one kernel row (the larger of FMA issue, loads and latency; a remainder costs
// a smaller tile). MR accumulators, the KW weights and two inputs in flight fit the vector
// registers, and 16 pixels at most: longer tiles measured no faster.
int chooseDwconvRows(const TargetModel& t, int64_t width, int64_t kw, int64_t sx);

}  // namespace kiln::kernel
