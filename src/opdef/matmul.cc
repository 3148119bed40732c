// Matrix products: the output dims of A @ B.
#include "kiln/opdef/matmul.h"

#include "kiln/opdef/broadcast.h"

namespace kiln::opdef {

DimList matmulShape(const OpView& op, size_t a, size_t b) {
  DimList sa = op.inputDims(a), sb = op.inputDims(b);
  if (sa.empty() || sb.empty()) {
    fail(op, "inputs are ", op.inputTypeStr(a), " and ", op.inputTypeStr(b),
         "; expected rank >= 1 (no scalars)");
  }
  bool vectorA = sa.size() == 1, vectorB = sb.size() == 1;
  if (vectorA) sa.insert(sa.begin(), Dim(1));
  if (vectorB) sb.push_back(Dim(1));
  const Dim& ka = sa.back();
  const Dim& kb = sb[sb.size() - 2];
  if (ka.isConst() && kb.isConst() && ka != kb) {
    fail(op, "inner dimensions differ: A ", op.inputTypeStr(a), " has K=", ka.str(), " but B ",
         op.inputTypeStr(b), " has K=", kb.str());
  }
  DimList out =
      broadcastDims(op, DimList(sa.begin(), sa.end() - 2), DimList(sb.begin(), sb.end() - 2));
  if (!vectorA) out.push_back(sa[sa.size() - 2]);
  if (!vectorB) out.push_back(sb.back());
  return out;
}

}  // namespace kiln::opdef
