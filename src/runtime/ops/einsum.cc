// Einsum (equation parsed by src/opdef): the sum over the equation's labels that the output does
// not keep of the product of the inputs' elements, in double; repeated labels within an input take
// its diagonal, and "..." stands for broadcast dims.
#include "kiln/opdef/einsum.h"

#include <map>

#include "context_view.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runEinsum(RuntimeOpContext& ctx) {
  opdef::EinsumSpec spec = opdef::parseEinsum(ContextView(ctx));
  std::map<int, int64_t>& size = spec.size;
  std::vector<int> all;
  all.reserve(size.size());
  for (const auto& [l, n] : size) all.push_back(l);
  Shape outShape = spec.outputShape();
  NDArray y = ctx.output(0, outShape);
  std::vector<std::vector<double>> values;
  values.reserve(spec.inputs.size());
  for (size_t i = 0; i < spec.inputs.size(); ++i) values.push_back(toDoubles(ctx, ctx.input(i)));
  // Odometer over every label; each combination adds one product to its output element.
  std::map<int, size_t> slot;
  for (size_t k = 0; k < all.size(); ++k) slot[all[k]] = k;
  std::vector<int64_t> at(all.size(), 0);
  std::vector<double> acc(static_cast<size_t>(y.numel()), 0.0);
  int64_t combos = 1;
  for (int l : all) combos *= size[l];
  for (int64_t c = 0; c < combos; ++c) {
    double prod = 1;
    for (size_t i = 0; i < spec.inputs.size() && prod != 0; ++i) {
      const Shape& s = ctx.input(i).shape();
      int64_t off = 0;
      for (size_t d = 0; d < spec.inputs[i].size(); ++d) {
        int64_t idx = s[d] == 1 ? 0 : at[slot[spec.inputs[i][d]]];
        off = off * s[d] + idx;
      }
      prod *= values[i][static_cast<size_t>(off)];
    }
    int64_t o = 0;
    for (size_t d = 0; d < spec.output.size(); ++d) o = o * outShape[d] + at[slot[spec.output[d]]];
    acc[static_cast<size_t>(o)] += prod;
    for (size_t k = all.size(); k-- > 0;) {
      if (++at[k] < size[all[k]]) break;
      at[k] = 0;
    }
  }
  storeDoubles(ctx, y, acc);
}

}  // namespace kiln::runtime::ops
