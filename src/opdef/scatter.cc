// ScatterElements and ScatterND: how indices and updates must fit data.
#include "kiln/opdef/scatter.h"

#include "kiln/opdef/axes.h"

namespace kiln::opdef {
namespace {

bool shapesDiffer(const Dims& a, const Dims& b) {
  if (a.size() != b.size()) return true;
  for (size_t d = 0; d < a.size(); ++d) {
    if (knownAndDiffer(a[d], b[d])) return true;
  }
  return false;
}

}  // namespace

int64_t scatterElementsAxis(const OpView& op) {
  Dims data = op.inputShape(0), indices = op.inputShape(1), updates = op.inputShape(2);
  if (indices.size() != data.size() || shapesDiffer(indices, updates)) {
    fail(op, "indices ", op.inputTypeStr(1), " and updates ", op.inputTypeStr(2),
         " must have one shape, of the rank of data ", op.inputTypeStr(0));
  }
  return normalizeAxis(op, op.attrInt("axis", 0), static_cast<int64_t>(data.size()));
}

int64_t scatterNdDepth(const OpView& op) {
  Dims data = op.inputShape(0), indices = op.inputShape(1), updates = op.inputShape(2);
  int64_t k = indices.empty() ? kUnknownDim : indices.back();
  if (indices.empty() || (k != kUnknownDim && k > static_cast<int64_t>(data.size()))) {
    fail(op, "indices ", op.inputTypeStr(1), " must end in a dim of at most ", data.size(),
         " (the rank of data ", op.inputTypeStr(0), ")");
  }
  if (k == kUnknownDim) return k;
  Dims want(indices.begin(), indices.end() - 1);
  want.insert(want.end(), data.begin() + k, data.end());
  if (shapesDiffer(updates, want)) {
    fail(op, "updates is ", op.inputTypeStr(2), "; expected ", dimsStr(want),
         " (indices' leading dims, then data's dims after the first ", k, ")");
  }
  return k;
}

}  // namespace kiln::opdef
