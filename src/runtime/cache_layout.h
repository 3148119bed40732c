// Tensors laid out for a key/value cache's capacity (cache-in-place): the past and the present of
// a cache share one storage in which consecutive matrices lie a fixed number of rows apart, so a
// run appends rows in place and a present becomes the next past without a copy. Copies in and out
// of such a tensor go through here.
#pragma once

#include <cstdint>

#include "kiln/runtime/ndarray.h"

namespace kiln::runtime {

// Where a tensor's elements lie: compact (AXIS -1), or (outer, j, inner) at
// (outer · ROWS + j) · INNER + inner, with outer indexing the dims before AXIS and inner those
// after it.
struct RowLayout {
  int64_t axis = -1;
  int64_t rows = 0;
  bool compact() const { return axis < 0; }
};

// Copies SRC, laid out FROM, into DST, laid out TO: both arrays carry the same shape and dtype
// (their logical ones; a laid-out array's storage holds its rows), else kiln::Error naming both.
void copyLaidOut(const NDArray& src, RowLayout from, NDArray& dst, RowLayout to);

}  // namespace kiln::runtime
