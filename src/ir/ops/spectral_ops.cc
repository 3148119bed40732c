// Type inference of the signal ops the runtime executes: DFT, STFT and MelWeightMatrix. Their
// sizes come from scalar inputs (dft_length, frame_step, frame_length, num_mel_bins), so the
// shapes are static only when those are constants.
#include "infer_util.h"
#include "kiln/ir/onnx_dtype.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

constexpr int64_t kUnknown = runtime::kDynamicDim;

int64_t scalarConstant(const Node& node, size_t i, const char* what) {
  std::vector<int64_t> v = requireConstantInts(node, i, what);
  if (v.size() != 1) fail(node, what, " has ", v.size(), " elements; expected one");
  return v[0];
}

void requireSignal(const Node& node, const TensorType& x) {
  if (x.rank() < 2 || (x.shape.back() != 1 && x.shape.back() != 2)) {
    fail(node, "input is ", x.str(), "; expected [..., signal, 1 (real) or 2 (complex)]");
  }
}

void inferDft(Node& node) {
  const TensorType& x = inputType(node, 0);
  requireFloat(node, 0);
  requireSignal(node, x);
  auto axis = static_cast<size_t>(normalizeAxis(node, node.attrs.getInt("axis", 1), x.rank() - 1));
  int64_t n = hasInput(node, 1) ? scalarConstant(node, 1, "dft_length") : x.shape[axis];
  if (n < 1) fail(node, "dft_length is ", n, "; expected >= 1");
  Shape out = x.shape;
  out[axis] = node.attrs.getInt("onesided", 0) != 0 ? n / 2 + 1 : n;
  out.back() = 2;
  setOutput(node, 0, {x.dtype, out});
}

void inferDftRunTime(Node& node) {
  const TensorType& x = inputType(node, 0);
  Shape out(x.shape.size(), kUnknown);
  out.back() = 2;
  setOutput(node, 0, {x.dtype, out});
}

void inferStft(Node& node) {
  const TensorType& x = inputType(node, 0, "signal");
  requireFloat(node, 0);
  if (x.rank() != 3) fail(node, "signal is ", x.str(), "; expected [batch, length, 1 or 2]");
  requireSignal(node, x);
  int64_t step = scalarConstant(node, 1, "frame_step");
  int64_t length = hasInput(node, 3)   ? scalarConstant(node, 3, "frame_length")
                   : hasInput(node, 2) ? inputType(node, 2).shape.at(0)
                                       : -1;
  if (step < 1 || length < 1 || length > x.shape[1]) {
    fail(node, "frame_step ", step, " and frame_length ", length, " do not frame a signal of ",
         x.shape[1]);
  }
  int64_t bins = node.attrs.getInt("onesided", 1) != 0 ? length / 2 + 1 : length;
  setOutput(node, 0, {x.dtype, {x.shape[0], (x.shape[1] - length) / step + 1, bins, 2}});
}

void inferStftRunTime(Node& node) {
  const TensorType& x = inputType(node, 0, "signal");
  setOutput(node, 0, {x.dtype, {x.shape.at(0), kUnknown, kUnknown, 2}});
}

DataType melType(const Node& node) {
  return numericTypeFromOnnx(node.attrs.getInt("output_datatype", 1));
}

void inferMel(Node& node) {
  int64_t mels = scalarConstant(node, 0, "num_mel_bins");
  int64_t dft = scalarConstant(node, 1, "dft_length");
  if (mels < 1 || dft < 1) fail(node, "num_mel_bins and dft_length must be >= 1");
  setOutput(node, 0, {melType(node), {dft / 2 + 1, mels}});
}

}  // namespace

void registerSpectralOps(const OpAdder& add) {
  add({.name = "DFT",
       .maxInputs = 2,
       .sinceVersion = 17,
       .shapeInputs = {1},
       .inferRunTime = inferDftRunTime,
       .inferTypes = inferDft});
  add({.name = "STFT",
       .minInputs = 2,
       .maxInputs = 4,
       .sinceVersion = 17,
       .shapeInputs = {1, 3},
       .inferRunTime = inferStftRunTime,
       .inferTypes = inferStft});
  add({.name = "MelWeightMatrix",
       .minInputs = 5,
       .maxInputs = 5,
       .sinceVersion = 17,
       .shapeInputs = {0, 1},
       .inferRunTime =
           [](Node& n) {
             setOutput(n, 0, {melType(n), {kUnknown, kUnknown}});
           },
       .inferTypes = inferMel});
}

}  // namespace kiln::ir::ops
