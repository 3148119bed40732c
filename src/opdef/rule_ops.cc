// The list of ops with rules here: extended with each rule moved into src/opdef.
#include "kiln/opdef/rule_ops.h"

namespace kiln::opdef {

const std::set<std::string>& ruleOps() {
  static const std::set<std::string> kOps = {
      "AveragePool", "Conv",    "ConvInteger", "Einsum", "Flatten", "MaxPool",   "QLinearConv",
      "Range",       "Reshape", "Resize",      "Slice",  "Squeeze", "Unsqueeze", "Upsample"};
  return kOps;
}

}  // namespace kiln::opdef
