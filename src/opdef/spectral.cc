// DFT, STFT and MelWeightMatrix: the sizes their scalar inputs and attributes give.
#include "kiln/opdef/spectral.h"

#include "kiln/opdef/axes.h"

namespace kiln::opdef {
namespace {

// Scalar input I (WHAT in errors), which must be >= 1, or kUnknownDim when not known now.
int64_t positiveScalar(const OpView& op, size_t i, const char* what) {
  std::optional<std::vector<int64_t>> v = op.inputInts(i, what);
  if (!v) return kUnknownDim;
  if (v->size() != 1) fail(op, what, " has ", v->size(), " elements; expected one");
  if ((*v)[0] < 1) fail(op, what, " is ", (*v)[0], "; expected >= 1");
  return (*v)[0];
}

void requireSignal(const OpView& op, const Dims& x) {
  if (x.size() < 2 || (x.back() != 1 && x.back() != 2)) {
    fail(op, "input is ", op.inputTypeStr(0), "; expected [..., signal, 1 (real) or 2 (complex)]");
  }
}

}  // namespace

DftSpec dftSpec(const OpView& op) {
  Dims x = op.inputShape(0);
  requireSignal(op, x);
  DftSpec s;
  s.axis = static_cast<size_t>(
      normalizeAxis(op, op.attrInt("axis", 1), static_cast<int64_t>(x.size()) - 1));
  s.length = op.hasInput(1) ? positiveScalar(op, 1, "dft_length") : x[s.axis];
  if (s.length == 0) fail(op, "the signal axis of ", op.inputTypeStr(0), " is empty");
  s.onesided = op.attrInt("onesided", 0) != 0;
  s.out = x;
  s.out[s.axis] = s.length == kUnknownDim ? kUnknownDim : s.onesided ? s.length / 2 + 1 : s.length;
  s.out.back() = 2;
  return s;
}

StftSpec stftSpec(const OpView& op) {
  Dims x = op.inputShape(0);
  if (x.size() != 3)
    fail(op, "signal is ", op.inputTypeStr(0), "; expected [batch, length, 1 or 2]");
  requireSignal(op, x);
  StftSpec s;
  s.step = positiveScalar(op, 1, "frame_step");
  int64_t window = op.hasInput(2) ? op.inputShape(2).at(0) : kUnknownDim;
  if (op.hasInput(3)) {
    s.length = positiveScalar(op, 3, "frame_length");
  } else if (op.hasInput(2)) {
    s.length = window;
  } else {
    fail(op, "neither a window (input 2) nor frame_length (input 3) is given; expected one");
  }
  bool known = s.step != kUnknownDim && s.length != kUnknownDim && x[1] != kUnknownDim;
  if (known && (s.length < 1 || s.length > x[1])) {
    fail(op, "frame_step ", s.step, " and frame_length ", s.length, " do not frame a signal of ",
         x[1]);
  }
  if (window != kUnknownDim && s.length != kUnknownDim && window != s.length) {
    fail(op, "window is ", op.inputTypeStr(2), "; expected frame_length ", s.length, " values");
  }
  s.onesided = op.attrInt("onesided", 1) != 0;
  int64_t frames = known ? (x[1] - s.length) / s.step + 1 : kUnknownDim;
  int64_t bins = s.length == kUnknownDim ? kUnknownDim : s.onesided ? s.length / 2 + 1 : s.length;
  s.out = {x[0], frames, bins, 2};
  return s;
}

Dims melWeightShape(const OpView& op) {
  int64_t mels = positiveScalar(op, 0, "num_mel_bins");
  int64_t dft = positiveScalar(op, 1, "dft_length");
  return {dft == kUnknownDim ? kUnknownDim : dft / 2 + 1, mels};
}

}  // namespace kiln::opdef
