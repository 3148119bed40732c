// Normalizations: inference BatchNormalization and LRN as per-element expressions (so they fuse
// like elementwise ops); InstanceNormalization and LayerNormalization as fused row reductions
// (mean, variance, scale) that anchor a group.
#include <algorithm>
#include <cmath>

#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

Expr channelParam(LowerContext& ctx, const ir::Node& node, size_t i, const Expr& c) {
  return ctx.accessor(node.inputs[i])({c});
}

std::vector<Accessor> batchNorm(LowerContext& ctx, const ir::Node& node) {
  for (size_t i = 1; i < 5; ++i) {
    if (!hasInput(node, i) || node.inputs[i]->type.rank() != 1) {
      unsupported(node, "scale, B, mean and var must be 1-D per-channel tensors");
    }
  }
  if (node.inputs[0]->type.rank() < 2)
    unsupported(node, "input must have a channel axis (rank >= 2)");
  if (node.attrs.getInt("training_mode", 0) != 0) unsupported(node, "training_mode=1");
  DataType t = node.outputs[0]->type.dtype;
  if (!t.isFloat()) unsupported(node, strCat("dtype ", t.str(), "; expected a float type"));
  double eps = node.attrs.getFloat("epsilon", 1e-5);
  Accessor y = [&ctx, &node, eps, t](const Index& idx) {
    const Expr& c = idx[1];
    Expr x = ctx.accessor(node.inputs[0])(idx);
    Expr scale = channelParam(ctx, node, 1, c) /
                 call(Intrinsic::kSqrt, {channelParam(ctx, node, 4, c) + constant(eps, t)});
    return (x - channelParam(ctx, node, 3, c)) * scale + channelParam(ctx, node, 2, c);
  };
  return {y};
}

// LRN across channels: x / (bias + alpha / size * sum of squares in the window) ^ beta.
std::vector<Accessor> lrn(LowerContext& ctx, const ir::Node& node) {
  const Dims& xs = node.inputs[0]->type.shape;
  if (xs.size() < 2) unsupported(node, "input must have a channel axis (rank >= 2)");
  DataType t = node.outputs[0]->type.dtype;
  if (!t.isFloat()) unsupported(node, strCat("dtype ", t.str(), "; expected a float type"));
  int64_t size = node.attrs.getInt("size");
  double alpha = node.attrs.getFloat("alpha", 1e-4), beta = node.attrs.getFloat("beta", 0.75);
  double bias = node.attrs.getFloat("bias", 1.0);
  int64_t channels = xs[1];
  Accessor y = [&ctx, &node, size, alpha, beta, bias, channels, t](const Index& idx) {
    Accessor x = ctx.accessor(node.inputs[0]);
    Expr sum = constant(0, t);
    for (int64_t j = -(size - 1) / 2; j <= size / 2; ++j) {
      Expr c = idx[1] + intImm(j);
      Expr ok =
          compare(CompareOp::kGE, c, intImm(0)) && compare(CompareOp::kLT, c, intImm(channels));
      Index at = idx;
      at[1] = clampTo(c, 0, channels - 1);
      Expr v = x(at);
      sum = sum + select(ok, v * v, constant(0, t));
    }
    Expr base = constant(bias, t) + constant(alpha / static_cast<double>(size), t) * sum;
    return x(idx) / call(Intrinsic::kPow, {base, constant(beta, t)});
  };
  return {y};
}

// How many rows a normalisation runs: this run's (an expression, sizes in symbols) and the most.
struct Rows {
  Expr count;
  int64_t most = 0;
};

// Normalizes each row of K contiguous elements: mean, variance, then the scaled output.
Stmt normalizeRows(
    LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn, const Rows& rows, int64_t k,
    double eps, const std::function<Index(const Expr&, const Expr&)>& outIdx,
    const std::function<Expr(const Expr& row, const Index& idx, const Expr& norm)>& affine) {
  const ir::Value* xv = node.inputs[0];
  DataType t = node.outputs[0]->type.dtype;
  if (!t.isFloat()) unsupported(node, strCat("dtype ", t.str(), "; expected a float type"));
  bool wide = rows.most * k >= (1 << 14) && rows.most > 1;
  ForKind kind = wide ? ctx.parallelKind() : ForKind::kSerial;
  Expr kf = constant(static_cast<double>(k), t);
  return loopRange(ctx, "row", intImm(0), rows.count, kind, [&](const Expr& row) {
    Expr base = row * intImm(k);
    auto x = [&](const Expr& j) { return ctx.readFlat(xv, base + j); };
    return reduceRange(ctx, t, k, constant(0, t), add, x, [&](const Expr& sum) {
      Expr mean = sum / kf;
      return reduceRange(
          ctx, t, k, constant(0, t), add,
          [&](const Expr& j) {
            Expr d = x(j) - mean;
            return d * d;
          },
          [&](const Expr& sq) {
            Expr inv = constant(1, t) / call(Intrinsic::kSqrt, {sq / kf + constant(eps, t)});
            return loop(ctx, "j", k, ctx.vectorKind(), [&](const Expr& j) {
              Index idx = outIdx(row, j);
              return storeFn(idx, affine(row, idx, (x(j) - mean) * inv));
            });
          });
    });
  });
}

// Rows in symbols (a sequence length) take this run's count; the normalised dims are static.
Stmt emitLayerNorm(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  const ir::Value* xv = node.inputs[0];
  const Dims& xs = xv->type.shape;
  auto rank = static_cast<int64_t>(xs.size());
  int64_t axis = normalizeAxis(node, node.attrs.getInt("axis", -1), rank);
  Dims outer(xs.begin(), xs.begin() + axis), row(xs.begin() + axis, xs.end());
  double eps = node.attrs.getFloat("epsilon", 1e-5);
  Rows rows{intImm(product(outer)), product(outer)};
  Index outerX;
  if (ctx.symbolic()) {
    if (std::any_of(row.begin(), row.end(), [](int64_t d) { return d < 0; })) {
      unsupported(node, strCat("it normalises over dims sized in symbols (", xv->type.str(),
                               ", axis ", axis, "); kiln's kernel takes them static"));
    }
    Index extents = ctx.extentsOf(xv);
    outerX.assign(extents.begin(), extents.begin() + axis);
    rows = {productOf(outerX), ctx.capacityNumel(xv) / std::max<int64_t>(1, product(row))};
  }
  auto outIdx = [&ctx, outer, outerX, row](const Expr& r, const Expr& j) {
    Index idx = ctx.symbolic() ? unflatten(r, outerX) : unflatten(r, outer);
    Index tail = unflatten(j, row);
    idx.insert(idx.end(), tail.begin(), tail.end());
    return idx;
  };
  auto affine = [&ctx, &node](const Expr&, const Index& idx, const Expr& norm) {
    Expr y = norm * inputAt(ctx, node, 1, idx);
    if (hasInput(node, 2)) y = y + inputAt(ctx, node, 2, idx);
    return y;
  };
  return normalizeRows(ctx, node, storeFn, rows, product(row), eps, outIdx, affine);
}

Stmt emitInstanceNorm(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  const Dims& xs = node.inputs[0]->type.shape;
  if (xs.size() < 3) unsupported(node, "input must be N, C, spatial...");
  Dims planes(xs.begin(), xs.begin() + 2), spatial(xs.begin() + 2, xs.end());
  double eps = node.attrs.getFloat("epsilon", 1e-5);
  auto outIdx = [planes, spatial](const Expr& r, const Expr& j) {
    Index idx = unflatten(r, planes), tail = unflatten(j, spatial);
    idx.insert(idx.end(), tail.begin(), tail.end());
    return idx;
  };
  auto affine = [&ctx, &node](const Expr&, const Index& idx, const Expr& norm) {
    return norm * channelParam(ctx, node, 1, idx[1]) + channelParam(ctx, node, 2, idx[1]);
  };
  Rows rows{intImm(product(planes)), product(planes)};
  return normalizeRows(ctx, node, storeFn, rows, product(spatial), eps, outIdx, affine);
}

}  // namespace

void addBatchNormLowerings(LoweringMap& table) {
  table["BatchNormalization"].compute = batchNorm;
  table["LRN"].compute = lrn;
  table["LayerNormalization"].emit = emitLayerNorm;
  table["LayerNormalization"].symbolicSizes = true;
  table["InstanceNormalization"].emit = emitInstanceNorm;
}

}  // namespace kiln::kernel
