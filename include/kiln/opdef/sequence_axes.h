// The rules of ops that read a tensor as sequences along one axis: ReverseSequence (time and
// batch axes, one length per batch entry), Compress and Unique (an axis, or the flattened tensor).
#pragma once

#include <optional>

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

struct TimeBatchAxes {
  size_t time = 0, batch = 1;
};
// ReverseSequence's axes (0 and 1 in some order), sequence_lens checked against the batch size.
TimeBatchAxes reverseSequenceAxes(const OpView& op);

// Compress's and Unique's axis, normalised; nullopt when absent (the flattened tensor).
std::optional<int64_t> selectionAxis(const OpView& op);
// Their output dims: the input's with the axis sized by the data (unknown), or [unknown] flat.
Dims selectedShape(const OpView& op);

}  // namespace kiln::opdef
