// Type inference of the signal ops the runtime executes: DFT, STFT and MelWeightMatrix. Their
// sizes come from scalar inputs (dft_length, frame_step, frame_length, num_mel_bins), so the
// shapes are static only when those are constants.
#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "kiln/ir/onnx_dtype.h"
#include "kiln/opdef/spectral.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

// The sizes are src/opdef's rules, which the runtime's ops follow too; unknown where a scalar
// input is known only at run time.
void inferDft(Node& node) {
  requireFloat(node, 0);
  setOutput(node, 0, {inputType(node, 0).dtype, opdef::dftSpec(NodeView(node)).out});
}

void inferStft(Node& node) {
  requireFloat(node, 0);
  setOutput(node, 0, {inputType(node, 0, "signal").dtype, opdef::stftSpec(NodeView(node)).out});
}

DataType melType(const Node& node) {
  return numericTypeFromOnnx(node.attrs.getInt("output_datatype", 1));
}

void inferMel(Node& node) {
  setOutput(node, 0, {melType(node), opdef::melWeightShape(NodeView(node))});
}

}  // namespace

void registerSpectralOps(const OpAdder& add) {
  add({.name = "DFT",
       .maxInputs = 2,
       .sinceVersion = 17,
       .shapeInputs = {1},
       .inferRunTime = inferDft,
       .inferTypes = inferDft});
  add({.name = "STFT",
       .minInputs = 2,
       .maxInputs = 4,
       .sinceVersion = 17,
       .shapeInputs = {1, 3},
       .inferRunTime = inferStft,
       .inferTypes = inferStft});
  add({.name = "MelWeightMatrix",
       .minInputs = 5,
       .maxInputs = 5,
       .sinceVersion = 17,
       .shapeInputs = {0, 1},
       .inferRunTime = inferMel,
       .inferTypes = inferMel});
}

}  // namespace kiln::ir::ops
