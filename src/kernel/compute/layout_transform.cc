// kiln.LayoutTransform: NCHW <-> NCHW[b]c as an injective read, so it fuses with its injective
// neighbours; the channels past C of a blocked tensor are written as zeros.
#include "compute_table.h"
#include "kiln/support/error.h"

namespace kiln::kernel {

OpLowering layoutTransformLowering() {
  OpLowering l;
  l.compute = [](LowerContext& ctx, const ir::Node& node) {
    Accessor a = [&ctx, &node](const Index& idx) -> Expr {
      const ir::Value* x = node.inputs[0];
      const Dims& xs = x->type.shape;
      int64_t b = node.attrs.getInt("block");
      Accessor in = ctx.accessor(x);
      if (node.attrs.getString("to", "") == "blocked") {
        // idx = [n, cb, spatial..., lane] -> channel cb*b + lane of x.
        int64_t channels = xs[1];
        Expr c = idx[1] * intImm(b) + idx.back();
        Index from = {idx[0], min(c, intImm(channels - 1))};
        from.insert(from.end(), idx.begin() + 2, idx.end() - 1);
        Expr v = in(from);
        if (channels % b == 0) return v;
        return select(compare(CompareOp::kLT, c, intImm(channels)), v, constant(0, v->dtype));
      }
      // idx = [n, c, spatial...] -> block c/b, lane c%b of x.
      Index from = {idx[0], floorDivBy(idx[1], b)};
      from.insert(from.end(), idx.begin() + 2, idx.end());
      from.push_back(binary(BinaryOp::kFloorMod, idx[1], intImm(b)));
      return in(from);
    };
    return std::vector<Accessor>{a};
  };
  return l;
}

}  // namespace kiln::kernel
