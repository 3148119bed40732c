// The list of ops with rules here: extended with each rule moved into src/opdef.
#include "kiln/opdef/rule_ops.h"

namespace kiln::opdef {

const std::set<std::string>& ruleOps() {
  static const std::set<std::string> kOps = {"Einsum", "Range", "Resize", "Slice", "Upsample"};
  return kOps;
}

}  // namespace kiln::opdef
