// Deterministic pseudo-random tensors for tests and the parser's random(seed=N) constants.
#pragma once

#include <cstdint>

#include "kiln/ir/graph.h"

namespace kiln::ir {

// Element i takes the i-th output x of SplitMix64 seeded with SEED, u = (x >> 11) * 2^-53 in
// [0, 1), and v = low + (high - low) * u: float types store v rounded to the type; integer types
// store floor(v); bool stores u >= 0.5. Defaults: [-1, 1) for floats, [-8, 8) for integers (pass
// low < high to override). The same seed always gives the same tensor, on every platform; tests
// may rely on that, not on particular values.
NDArray randomTensor(const TensorType& type, uint64_t seed, double low = 0.0, double high = 0.0);

}  // namespace kiln::ir
