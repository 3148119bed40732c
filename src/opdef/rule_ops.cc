// The list of ops with rules here: extended with each rule moved into src/opdef.
#include "kiln/opdef/rule_ops.h"

namespace kiln::opdef {

const std::set<std::string>& ruleOps() {
  // The ops whose shape rules src/opdef holds and the runtime executes. (The binary ops broadcast
  // by broadcast.cc's rule too; their node tests are many and their rule one, so they stay out.)
  // clang-format off
  static const std::set<std::string> kOps = {
      "AveragePool", "Compress", "ConstantOfShape", "Conv", "ConvInteger", "DFT", "Det", "Einsum",
      "Expand", "EyeLike", "Flatten", "GRU", "GatherND", "GridSample", "LSTM", "MatMulInteger",
      "MaxPool", "MaxUnpool", "MelWeightMatrix", "OneHot", "Pad", "QLinearConv", "QLinearMatMul",
      "RNN", "Range", "ReduceSum", "Reshape", "Resize", "ReverseSequence", "RoiAlign", "STFT",
      "Scatter", "ScatterElements", "ScatterND", "Shape", "Slice", "Split", "Squeeze",
      "TfIdfVectorizer", "Tile", "TopK", "Unique", "Unsqueeze", "Upsample"};
  // clang-format on
  return kOps;
}

}  // namespace kiln::opdef
