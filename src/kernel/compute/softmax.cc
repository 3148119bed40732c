// Softmax, LogSoftmax and Hardmax over one axis: three passes per row (max, sum of exp, scale),
// vectorized along the row when the axis is innermost and across rows otherwise.
#include <algorithm>

#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

enum class Kind { kSoftmax, kLogSoftmax, kHardmax };

// The shape seen as [outer, k, inner] around the reduced axis (or axes, in legacy mode).
struct Rows {
  int64_t outer = 1, k = 1, inner = 1;
  Dims outerDims, kDims, innerDims;
  // The rows and their length as expressions: this run's when sized in symbols (then only over
  // the last axis, outerX the outer extents), else immediates of outer and k.
  Expr outerN, kN;
  Index outerX;
  bool symbolic = false;
};

Rows rowsOf(const ir::Node& node, const Dims& shape) {
  int64_t rank = static_cast<int64_t>(shape.size());
  bool legacy = node.attrs.has("kiln.softmax_legacy");
  int64_t axis = normalizeAxis(node, node.attrs.getInt("axis", legacy ? 1 : -1), rank);
  Rows r;
  auto a = static_cast<size_t>(axis);
  r.outerDims.assign(shape.begin(), shape.begin() + axis);
  if (legacy) {
    r.kDims.assign(shape.begin() + axis, shape.end());
  } else {
    r.kDims = {shape[a]};
    r.innerDims.assign(shape.begin() + axis + 1, shape.end());
  }
  r.outer = product(r.outerDims);
  r.k = product(r.kDims);
  r.inner = product(r.innerDims);
  r.outerN = intImm(r.outer);
  r.kN = intImm(r.k);
  return r;
}

// Rows sized in symbols: the axis must be the last one (softmax over a growing key length).
Rows symbolicRowsOf(LowerContext& ctx, const ir::Node& node, Kind kind) {
  const ir::Value* xv = node.inputs[0];
  auto rank = static_cast<int64_t>(xv->type.rank());
  bool legacy = node.attrs.has("kiln.softmax_legacy");
  int64_t axis = normalizeAxis(node, node.attrs.getInt("axis", legacy ? 1 : -1), rank);
  if (legacy || axis != rank - 1 || kind == Kind::kHardmax) {
    unsupported(node, strCat("its sizes are in symbols (", xv->type.str(),
                             "); kiln's kernel for them takes Softmax and LogSoftmax over the "
                             "last axis (opset 13 or later)"));
  }
  Index extents = ctx.extentsOf(xv);
  Rows r;
  r.symbolic = true;
  r.outerX.assign(extents.begin(), extents.end() - 1);
  r.outerN = productOf(r.outerX);
  r.kN = extents.back();
  Dims most = ctx.placedShape(xv);
  r.k = most.back();
  r.outer = product(most) / std::max<int64_t>(1, r.k);
  return r;
}

Index rowIndex(const Rows& r, const Expr& o, const Expr& k, const Expr& i) {
  if (r.symbolic) {
    Index idx = unflatten(o, r.outerX);
    idx.push_back(k);
    return idx;
  }
  Index idx = unflatten(o, r.outerDims);
  Index ks = unflatten(k, r.kDims);
  Index is = unflatten(i, r.innerDims);
  idx.insert(idx.end(), ks.begin(), ks.end());
  idx.insert(idx.end(), is.begin(), is.end());
  return idx;
}

Expr finalValue(Kind kind, const Expr& x, const Expr& mx, const Expr& sum) {
  Expr shifted = x - mx;
  if (kind == Kind::kLogSoftmax) return shifted - call(Intrinsic::kLog, {sum});
  return call(Intrinsic::kExp, {shifted}) / sum;
}

// One row per task, the row contiguous: vectorized reductions along it.
Stmt emitContiguous(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn, Kind kind,
                    const Rows& r, DataType t) {
  const ir::Value* xv = node.inputs[0];
  ForKind outer = r.outer * r.k >= 4096 ? ctx.parallelKind() : ForKind::kSerial;
  return loopRange(ctx, "row", intImm(0), r.outerN, outer, [&](const Expr& row) {
    Expr base = row * r.kN;
    auto x = [&](const Expr& k) { return ctx.readFlat(xv, base + k); };
    if (kind == Kind::kHardmax) {
      // The first index of the maximum gets 1.
      return reduceRange(
          ctx, t, r.k, lowest(t), [](const Expr& a, const Expr& b) { return max(a, b); }, x,
          [&](const Expr& mx) {
            return withScalar(ctx, "first", intImm(r.k), [&](const Buffer& first) {
              Stmt find = loop(ctx, "k", r.k, ForKind::kSerial, [&](const Expr& k) {
                Expr hit = compare(CompareOp::kEQ, x(k), mx) &&
                           compare(CompareOp::kEQ, load(first, intImm(0)), intImm(r.k));
                return store(first, intImm(0), select(hit, k, load(first, intImm(0))));
              });
              Stmt write = loop(ctx, "k", r.k, ctx.vectorKind(), [&](const Expr& k) {
                Expr one = compare(CompareOp::kEQ, k, load(first, intImm(0)));
                return storeFn(rowIndex(r, row, k, intImm(0)),
                               select(one, constant(1, t), constant(0, t)));
              });
              return seq({find, write});
            });
          });
    }
    return reduceRange(
        ctx, t, r.kN, lowest(t), [](const Expr& a, const Expr& b) { return max(a, b); }, x,
        [&](const Expr& mx) {
          return reduceRange(
              ctx, t, r.kN, constant(0, t), add,
              [&](const Expr& k) { return call(Intrinsic::kExp, {x(k) - mx}); },
              [&](const Expr& sum) {
                return loopRange(ctx, "k", intImm(0), r.kN, ctx.vectorKind(), [&](const Expr& k) {
                  return storeFn(rowIndex(r, row, k, intImm(0)), finalValue(kind, x(k), mx, sum));
                });
              });
        });
  });
}

// The axis is not innermost: a task takes a tile of the inner positions and walks the axis,
// vectorized across the tile.
Stmt emitStrided(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn, Kind kind,
                 const Rows& r, DataType t) {
  const ir::Value* xv = node.inputs[0];
  // Two local buffers of the tile (the int64 index of Hardmax is the widest element).
  int64_t cap = localElementsCap(DataType::int64(), 2);
  int64_t tile = std::min(r.inner, std::clamp<int64_t>(ctx.knob("inner_tile", 256), 1, cap));
  int64_t blocks = ceilDiv(r.inner, tile);
  return loop(ctx, "task", r.outer * blocks, ctx.parallelKind(), [&](const Expr& task) {
    Expr o = floorDivBy(task, blocks);
    Expr i0 = binary(BinaryOp::kFloorMod, task, intImm(blocks)) * intImm(tile);
    Expr ext = r.inner % tile == 0 ? intImm(tile) : min(intImm(tile), intImm(r.inner) - i0);
    auto x = [&](const Expr& k, const Expr& i) {
      return ctx.readFlat(xv, (o * intImm(r.k) + k) * intImm(r.inner) + i0 + i);
    };
    Buffer mx = ctx.localBuffer("mx", t, {tile});
    Buffer sum = ctx.localBuffer("sum", kind == Kind::kHardmax ? DataType::int64() : t, {tile});
    auto overTile = [&](const std::function<Stmt(const Expr&)>& body) {
      return loopRange(ctx, "i", intImm(0), ext, ctx.vectorKind(), body);
    };
    auto overAxis = [&](const std::function<Stmt(const Expr&, const Expr&)>& body) {
      return loop(ctx, "k", r.k, ForKind::kSerial, [&](const Expr& k) {
        return overTile([&](const Expr& i) { return body(k, i); });
      });
    };
    std::vector<Stmt> passes;
    passes.push_back(overTile([&](const Expr& i) { return store(mx, i, lowest(t)); }));
    if (kind == Kind::kHardmax) {
      // sum holds the first index of the maximum.
      passes.push_back(overTile([&](const Expr& i) { return store(sum, i, intImm(0)); }));
      passes.push_back(overAxis([&](const Expr& k, const Expr& i) {
        Expr better = compare(CompareOp::kGT, x(k, i), load(mx, i));
        return seq({store(sum, i, select(better, k, load(sum, i))),
                    store(mx, i, max(load(mx, i), x(k, i)))});
      }));
      passes.push_back(overAxis([&](const Expr& k, const Expr& i) {
        Expr one = compare(CompareOp::kEQ, k, load(sum, i));
        return storeFn(rowIndex(r, o, k, i0 + i), select(one, constant(1, t), constant(0, t)));
      }));
    } else {
      passes.push_back(overAxis(
          [&](const Expr& k, const Expr& i) { return store(mx, i, max(load(mx, i), x(k, i))); }));
      passes.push_back(overTile([&](const Expr& i) { return store(sum, i, constant(0, t)); }));
      passes.push_back(overAxis([&](const Expr& k, const Expr& i) {
        return store(sum, i, load(sum, i) + call(Intrinsic::kExp, {x(k, i) - load(mx, i)}));
      }));
      passes.push_back(overAxis([&](const Expr& k, const Expr& i) {
        return storeFn(rowIndex(r, o, k, i0 + i),
                       finalValue(kind, x(k, i), load(mx, i), load(sum, i)));
      }));
    }
    return allocate(mx, allocate(sum, seq(passes)));
  });
}

Stmt emitSoftmax(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn, Kind kind) {
  const Dims& shape = node.inputs[0]->type.shape;
  DataType t = node.outputs[0]->type.dtype;
  if (!t.isFloat()) unsupported(node, strCat("dtype ", t.str(), "; expected a float type"));
  if (shape.empty()) unsupported(node, "input is a scalar; expected rank >= 1");
  if (ctx.symbolic())
    return emitContiguous(ctx, node, storeFn, kind, symbolicRowsOf(ctx, node, kind), t);
  Rows r = rowsOf(node, shape);
  if (r.outer * r.k * r.inner == 0) return seq({});
  return r.inner == 1 ? emitContiguous(ctx, node, storeFn, kind, r, t)
                      : emitStrided(ctx, node, storeFn, kind, r, t);
}

}  // namespace

void addSoftmaxLowerings(LoweringMap& table) {
  table["Softmax"].emit = [](LowerContext& c, const ir::Node& n, const StoreFn& s) {
    return emitSoftmax(c, n, s, Kind::kSoftmax);
  };
  table["Softmax"].symbolicSizes = true;
  table["LogSoftmax"].emit = [](LowerContext& c, const ir::Node& n, const StoreFn& s) {
    return emitSoftmax(c, n, s, Kind::kLogSoftmax);
  };
  table["LogSoftmax"].symbolicSizes = true;
  table["Hardmax"].emit = [](LowerContext& c, const ir::Node& n, const StoreFn& s) {
    return emitSoftmax(c, n, s, Kind::kHardmax);
  };
}

}  // namespace kiln::kernel
