// The rules of the signal ops DFT, STFT and MelWeightMatrix, whose sizes come from scalar inputs
// (dft_length, frame_step, frame_length, num_mel_bins): known at compile time when those are
// constants, else at run time.
#pragma once

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

struct DftSpec {
  size_t axis = 1;        // the signal axis (normalised; the last dim holds real/imaginary)
  int64_t length = 0;     // dft_length, or the axis size (kUnknownDim when not known now)
  bool onesided = false;  // keep the first length / 2 + 1 bins only
  Dims out;               // the input's dims, the axis cut to the bins, the last dim 2
};
DftSpec dftSpec(const OpView& op);

struct StftSpec {
  int64_t step = 0, length = 0;  // frame_step; frame_length (or the window's length)
  bool onesided = true;
  Dims out;  // [batch, frames, bins, 2]
};
StftSpec stftSpec(const OpView& op);

// MelWeightMatrix's dims [dft_length / 2 + 1, num_mel_bins].
Dims melWeightShape(const OpView& op);

}  // namespace kiln::opdef
