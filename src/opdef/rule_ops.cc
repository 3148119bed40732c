// The list of ops with rules here: extended with each rule moved into src/opdef.
#include "kiln/opdef/rule_ops.h"

namespace kiln::opdef {

const std::set<std::string>& ruleOps() {
  // The ops whose shape rules src/opdef holds and the runtime executes. (The binary ops broadcast
  // by broadcast.cc's rule too; their node tests are many and their rule one, so they stay out.)
  // clang-format off
  static const std::set<std::string> kOps = {
      "AveragePool", "ConstantOfShape", "Conv", "ConvInteger", "DFT", "Einsum", "Expand",
      "Flatten", "GRU", "GatherND", "GridSample", "LSTM", "MatMulInteger", "MaxPool", "MaxUnpool",
      "MelWeightMatrix", "OneHot", "Pad", "QLinearConv", "QLinearMatMul", "RNN", "Range",
      "ReduceSum", "Reshape", "Resize", "RoiAlign", "STFT", "Shape", "Slice", "Split", "Squeeze",
      "Tile", "TopK", "Unsqueeze", "Upsample"};
  // clang-format on
  return kOps;
}

}  // namespace kiln::opdef
