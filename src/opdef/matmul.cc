// Matrix products: the output dims of A @ B.
#include "kiln/opdef/matmul.h"

#include "kiln/opdef/broadcast.h"

namespace kiln::opdef {

Dims matmulShape(const OpView& op, size_t a, size_t b) {
  Dims sa = op.inputShape(a), sb = op.inputShape(b);
  if (sa.empty() || sb.empty()) {
    fail(op, "inputs are ", op.inputTypeStr(a), " and ", op.inputTypeStr(b),
         "; expected rank >= 1 (no scalars)");
  }
  bool vectorA = sa.size() == 1, vectorB = sb.size() == 1;
  if (vectorA) sa.insert(sa.begin(), 1);
  if (vectorB) sb.push_back(1);
  int64_t ka = sa.back(), kb = sb[sb.size() - 2];
  if (knownAndDiffer(ka, kb)) {
    fail(op, "inner dimensions differ: A ", op.inputTypeStr(a), " has K=", ka, " but B ",
         op.inputTypeStr(b), " has K=", kb);
  }
  Dims out = broadcastDims(op, Dims(sa.begin(), sa.end() - 2), Dims(sb.begin(), sb.end() - 2));
  if (!vectorA) out.push_back(sa[sa.size() - 2]);
  if (!vectorB) out.push_back(sb.back());
  return out;
}

}  // namespace kiln::opdef
