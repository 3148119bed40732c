// Axis arguments normalised the one way both the compiler and the runtime read them.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

// AXIS in [-rank, rank-1] (or [-rank, rank] when INCLUSIVE) -> [0, rank); an error naming WHAT.
int64_t normalizeAxis(const OpView& op, int64_t axis, int64_t rank, const char* what = "axis",
                      bool inclusive = false);
// Each axis normalised; an axis named twice is an error.
std::vector<int64_t> normalizeAxes(const OpView& op, const std::vector<int64_t>& axes, int64_t rank,
                                   const char* what = "axes");

}  // namespace kiln::opdef
