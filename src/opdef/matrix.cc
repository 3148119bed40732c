// Det and EyeLike: the shapes they take and give.
#include "kiln/opdef/matrix.h"

namespace kiln::opdef {

Dims detShape(const OpView& op) {
  Dims x = op.inputShape(0);
  if (x.size() < 2 || knownAndDiffer(x[x.size() - 1], x[x.size() - 2])) {
    fail(op, "input is ", op.inputTypeStr(0), "; expected [..., M, M]");
  }
  return Dims(x.begin(), x.end() - 2);
}

Dims eyeLikeShape(const OpView& op) {
  Dims x = op.inputShape(0);
  if (x.size() != 2) fail(op, "input is ", op.inputTypeStr(0), "; expected 2-D");
  return x;
}

}  // namespace kiln::opdef
