// GatherND and OneHot: the output dims their index inputs give.
#include "kiln/opdef/index.h"

#include <cmath>

#include "kiln/opdef/axes.h"

namespace kiln::opdef {

Dims gatherNdShape(const OpView& op) {
  Dims data = op.inputShape(0), idx = op.inputShape(1);
  int64_t b = op.attrInt("batch_dims", 0);
  auto q = static_cast<int64_t>(idx.size());
  int64_t k = q == 0 ? 0 : idx.back();
  if (q < 1 || b < 0 || b >= q || k == kUnknownDim || b + k > static_cast<int64_t>(data.size())) {
    fail(op, "indices ", op.inputTypeStr(1), " with batch_dims ", b, " do not index data ",
         op.inputTypeStr(0),
         "; expected indices of rank > batch_dims whose last dim k (known "
         "now) has batch_dims + k <= data's rank");
  }
  Dims out(idx.begin(), idx.end() - 1);
  for (auto d = static_cast<size_t>(b + k); d < data.size(); ++d) out.push_back(data[d]);
  return out;
}

int64_t oneHotAxis(const OpView& op) {
  auto rank = static_cast<int64_t>(op.inputShape(0).size()) + 1;
  return normalizeAxis(op, op.attrInt("axis", -1), rank);
}

Dims oneHotShape(const OpView& op) {
  Dims out = op.inputShape(0);
  int64_t depth = kUnknownDim;
  if (std::optional<std::vector<double>> d = op.inputDoubles(1, "depth")) {
    if (d->size() != 1) fail(op, "depth has ", d->size(), " elements; expected one");
    depth = sizeFromDouble(op, std::floor((*d)[0]), "depth");
    if (depth < 1) fail(op, "depth is ", depth, "; expected at least 1");
  }
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(oneHotAxis(op)), depth);
  return out;
}

}  // namespace kiln::opdef
