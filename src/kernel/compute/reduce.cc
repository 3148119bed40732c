// Reductions (ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare, ArgMax/ArgMin): a
// trailing reduced block is reduced with vectorized partials; otherwise the kept dimensions after
// the last reduced axis are vectorized while the reduced axes are walked.
#include <algorithm>
#include <cmath>
#include <set>

#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

struct ReduceOp {
  std::function<Expr(DataType)> init;
  Combine combine;
  std::function<Expr(const Expr&)> pre;                  // applied to each element
  std::function<Expr(const Expr&, int64_t count)> post;  // applied to the result
};

ReduceOp reduceOp(const std::string& op) {
  auto sum = [](const Expr& a, const Expr& b) { return a + b; };
  auto id = [](const Expr& x) { return x; };
  auto keep = [](const Expr& x, int64_t) { return x; };
  auto zero = [](DataType t) { return constant(0, t); };
  if (op == "ReduceSum") return {zero, sum, id, keep};
  if (op == "ReduceMean") {
    return {zero, sum, id, [](const Expr& x, int64_t n) {
              return x / constant(static_cast<double>(n), x->dtype);
            }};
  }
  if (op == "ReduceMax")
    return {lowest, [](const Expr& a, const Expr& b) { return max(a, b); }, id, keep};
  if (op == "ReduceMin")
    return {highest, [](const Expr& a, const Expr& b) { return min(a, b); }, id, keep};
  if (op == "ReduceProd") {
    return {[](DataType t) { return constant(1, t); },
            [](const Expr& a, const Expr& b) { return a * b; }, id, keep};
  }
  if (op == "ReduceL1") {
    return {zero, sum,
            [](const Expr& x) { return x->dtype.isUInt() ? x : call(Intrinsic::kAbs, {x}); }, keep};
  }
  if (op == "ReduceSumSquare") return {zero, sum, [](const Expr& x) { return x * x; }, keep};
  if (op == "ReduceL2") {
    return {zero, sum, [](const Expr& x) { return x * x; },
            [](const Expr& x, int64_t) { return call(Intrinsic::kSqrt, {x}); }};
  }
  if (op == "ReduceLogSum") {
    return {zero, sum, id, [](const Expr& x, int64_t) { return call(Intrinsic::kLog, {x}); }};
  }
  // ReduceLogSumExp
  return {zero, sum, [](const Expr& x) { return call(Intrinsic::kExp, {x}); },
          [](const Expr& x, int64_t) { return call(Intrinsic::kLog, {x}); }};
}

std::vector<bool> reducedAxes(const ir::Node& node, int64_t rank) {
  std::vector<int64_t> axes;
  bool fromInput = hasInput(node, 1);
  if (fromInput) {
    axes = constantInts(node, 1, "axes");
  } else {
    axes = node.attrs.getInts("axes", {});
  }
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  if (axes.empty()) {
    bool noop = node.attrs.getInt("noop_with_empty_axes", 0) != 0;
    if (!noop) std::fill(reduced.begin(), reduced.end(), true);
    return reduced;
  }
  for (int64_t a : axes) reduced[static_cast<size_t>(normalizeAxis(node, a, rank))] = true;
  return reduced;
}

// Sizes in symbols: kept leading dims (the rows, any of them in symbols) and a static trailing
// block of reduced axes, each row reduced with vectorized partials (RMSNorm's mean of squares).
Stmt emitSymbolicReduce(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn,
                        const std::vector<bool>& reduced, const ReduceOp& op, DataType t) {
  const ir::Value* xv = node.inputs[0];
  const Dims& xs = xv->type.shape;
  auto first =
      static_cast<size_t>(std::find(reduced.begin(), reduced.end(), true) - reduced.begin());
  bool trailing = first < xs.size() && node.op != "ReduceLogSumExp";
  for (size_t d = first; d < xs.size(); ++d) trailing = trailing && reduced[d] && xs[d] >= 0;
  if (!trailing) {
    unsupported(node, strCat("its sizes are in symbols (", xv->type.str(),
                             "); kiln's kernel for them reduces a static trailing block of axes"));
  }
  int64_t count = product(Dims(xs.begin() + static_cast<std::ptrdiff_t>(first), xs.end()));
  Index extents = ctx.extentsOf(xv);
  Index outer(extents.begin(), extents.begin() + static_cast<std::ptrdiff_t>(first));
  int64_t most = ctx.capacityNumel(xv) / std::max<int64_t>(1, count);
  bool keepDims = node.attrs.getInt("keepdims", 1) != 0;
  ForKind kind = most * count >= (1 << 14) && most > 1 ? ctx.parallelKind() : ForKind::kSerial;
  return loopRange(ctx, "o", intImm(0), productOf(outer), kind, [&](const Expr& o) {
    Index idx = unflatten(o, outer);
    if (keepDims) idx.resize(xs.size(), intImm(0));
    return reduceRange(
        ctx, t, count, op.init(t), op.combine,
        [&](const Expr& k) { return op.pre(ctx.readFlat(xv, o * intImm(count) + k)); },
        [&](const Expr& r) { return storeFn(idx, op.post(r, count)); });
  });
}

Stmt emitReduce(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  const ir::Value* xv = node.inputs[0];
  const Dims& xs = xv->type.shape;
  DataType t = node.outputs[0]->type.dtype;
  if (t != xv->type.dtype) unsupported(node, "output dtype differs from the input's");
  auto rank = static_cast<int64_t>(xs.size());
  std::vector<bool> reduced = reducedAxes(node, rank);
  bool keepDims = node.attrs.getInt("keepdims", 1) != 0;
  ReduceOp op = reduceOp(node.op);
  // Integer results are exact for these; the others need a float divide, root or logarithm.
  static const std::set<std::string> kIntegerOk = {"ReduceSum",  "ReduceMax", "ReduceMin",
                                                   "ReduceProd", "ReduceL1",  "ReduceSumSquare"};
  if (!t.isFloat() && !kIntegerOk.count(node.op)) {
    unsupported(node, strCat("dtype ", t.str(), "; expected a float type"));
  }
  if (ctx.symbolic()) return emitSymbolicReduce(ctx, node, storeFn, reduced, op, t);
  Dims strides = stridesOf(xs);
  int64_t last = -1, count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) last = d, count *= xs[d];
  }
  // Kept dims split into those before the last reduced axis (outer) and after it (inner).
  Dims outerDims, innerDims;
  std::vector<size_t> outerAxes, redAxes;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      redAxes.push_back(d);
    } else if (d < last) {
      outerDims.push_back(xs[d]), outerAxes.push_back(d);
    } else {
      innerDims.push_back(xs[d]);
    }
  }
  int64_t inner = product(innerDims), outer = product(outerDims);
  if (outer * inner == 0) return seq({});

  // The output index for outer position O and inner flat position I.
  auto outIndex = [&](const Expr& o, const Expr& i) {
    Index outerIdx = unflatten(o, outerDims), innerIdx = unflatten(i, innerDims);
    Index idx;
    size_t oi = 0, ii = 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (reduced[d]) {
        if (keepDims) idx.push_back(intImm(0));
      } else if (d < last) {
        idx.push_back(outerIdx[oi++]);
      } else {
        idx.push_back(innerIdx[ii++]);
      }
    }
    return idx;
  };
  auto outerBase = [&](const Expr& o) {
    Index outerIdx = unflatten(o, outerDims);
    Expr base = intImm(0);
    for (size_t k = 0; k < outerAxes.size(); ++k)
      base = base + outerIdx[k] * intImm(strides[outerAxes[k]]);
    return base;
  };
  // Nested serial loops over the reduced axes, BODY(offset of the reduced position).
  std::function<Stmt(size_t, Expr, const std::function<Stmt(const Expr&)>&)> overReduced =
      [&](size_t k, Expr off, const std::function<Stmt(const Expr&)>& body) -> Stmt {
    if (k == redAxes.size()) return body(off);
    size_t a = redAxes[k];
    return loop(ctx, "r", xs[a], ForKind::kSerial, [&](const Expr& r) {
      return overReduced(k + 1, off + r * intImm(strides[a]), body);
    });
  };
  // Reduced axes that form one contiguous trailing block are a single flat range.
  bool trailingBlock =
      inner == 1 && !redAxes.empty() &&
      static_cast<int64_t>(redAxes.size()) == last - static_cast<int64_t>(redAxes.front()) + 1;

  // LogSumExp reduces exp(x - m), m the (finite) maximum, and adds m back, so large inputs do not
  // overflow: a max pass runs first.
  bool shifted = node.op == "ReduceLogSumExp";
  ReduceOp maxOp = reduceOp("ReduceMax");
  auto identity = [](const Expr& x) { return x; };
  auto shiftOf = [t](const Expr& mx) {
    Expr finite = compare(CompareOp::kLT, call(Intrinsic::kAbs, {mx}), constant(INFINITY, t));
    return select(finite, mx, constant(0, t));
  };

  if (inner == 1) {
    // Reduces PRE(element) over the reduced positions after BASE with ROP, then THEN(result).
    auto reduceOne = [&](const Expr& base, const ReduceOp& rop,
                         const std::function<Expr(const Expr&)>& pre,
                         const std::function<Stmt(const Expr&)>& then) -> Stmt {
      if (trailingBlock) {
        return reduceRange(
            ctx, t, count, rop.init(t), rop.combine,
            [&](const Expr& k) { return pre(ctx.readFlat(xv, base + k)); }, then);
      }
      return withScalar(ctx, "acc", rop.init(t), [&](const Buffer& acc) {
        Stmt body = overReduced(0, base, [&](const Expr& off) {
          return store(acc, intImm(0),
                       rop.combine(load(acc, intImm(0)), pre(ctx.readFlat(xv, off))));
        });
        return seq({body, then(load(acc, intImm(0)))});
      });
    };
    ForKind kind = outer * count >= (1 << 14) && outer > 1 ? ctx.parallelKind() : ForKind::kSerial;
    return loop(ctx, "o", outer, kind, [&](const Expr& o) {
      Expr base = outerBase(o);
      auto out = [&](const Expr& v) { return storeFn(outIndex(o, intImm(0)), v); };
      if (!shifted) {
        return reduceOne(base, op, op.pre, [&](const Expr& r) { return out(op.post(r, count)); });
      }
      return reduceOne(base, maxOp, identity, [&](const Expr& mx) {
        return bindVar(ctx, "shift", shiftOf(mx), [&](const Expr& sh) {
          return reduceOne(
              base, op, [&](const Expr& x) { return op.pre(x - sh); },
              [&](const Expr& r) { return out(op.post(r, count) + sh); });
        });
      });
    });
  }
  int64_t tile = std::min(inner, std::clamp<int64_t>(ctx.knob("inner_tile", 1024), 1,
                                                     localElementsCap(t, shifted ? 2 : 1)));
  int64_t blocks = ceilDiv(inner, tile);
  return loop(ctx, "task", outer * blocks, ctx.parallelKind(), [&](const Expr& task) {
    Expr o = floorDivBy(task, blocks);
    Expr i0 = binary(BinaryOp::kFloorMod, task, intImm(blocks)) * intImm(tile);
    Expr ext = inner % tile == 0 ? intImm(tile) : min(intImm(tile), intImm(inner) - i0);
    auto overTile = [&](const std::function<Stmt(const Expr&)>& body) {
      return loopRange(ctx, "i", intImm(0), ext, ctx.vectorKind(), body);
    };
    // Accumulates PRE(element, lane) into BUF with ROP for every lane of the tile.
    auto pass = [&](const Buffer& buf, const ReduceOp& rop,
                    const std::function<Expr(const Expr&, const Expr&)>& pre) {
      Stmt init = overTile([&](const Expr& i) { return store(buf, i, rop.init(t)); });
      Stmt body = overReduced(0, outerBase(o) + i0, [&](const Expr& off) {
        return overTile([&](const Expr& i) {
          return store(buf, i, rop.combine(load(buf, i), pre(ctx.readFlat(xv, off + i), i)));
        });
      });
      return seq({init, body});
    };
    Buffer acc = ctx.localBuffer("acc", t, {tile});
    if (!shifted) {
      Stmt fin = overTile([&](const Expr& i) {
        return storeFn(outIndex(o, i0 + i), op.post(load(acc, i), count));
      });
      return allocate(
          acc, seq({pass(acc, op, [&](const Expr& x, const Expr&) { return op.pre(x); }), fin}));
    }
    Buffer sh = ctx.localBuffer("shift", t, {tile});
    Stmt maxPass = pass(sh, maxOp, [](const Expr& x, const Expr&) { return x; });
    Stmt toShift = overTile([&](const Expr& i) { return store(sh, i, shiftOf(load(sh, i))); });
    Stmt sumPass =
        pass(acc, op, [&](const Expr& x, const Expr& i) { return op.pre(x - load(sh, i)); });
    Stmt fin = overTile([&](const Expr& i) {
      return storeFn(outIndex(o, i0 + i), op.post(load(acc, i), count) + load(sh, i));
    });
    return allocate(acc, allocate(sh, seq({maxPass, toShift, sumPass, fin})));
  });
}

// ArgMax/ArgMin: one serial walk of the axis per output, keeping value and index.
Stmt emitArg(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  const ir::Value* xv = node.inputs[0];
  const Dims& xs = xv->type.shape;
  auto rank = static_cast<int64_t>(xs.size());
  int64_t axis = normalizeAxis(node, node.attrs.getInt("axis", 0), rank);
  bool keepDims = node.attrs.getInt("keepdims", 1) != 0;
  bool lastIndex = node.attrs.getInt("select_last_index", 0) != 0;
  bool isMax = node.op == "ArgMax";
  DataType vt = xv->type.dtype;
  DataType ot = node.outputs[0]->type.dtype;
  Dims outerDims(xs.begin(), xs.begin() + axis), innerDims(xs.begin() + axis + 1, xs.end());
  int64_t k = xs[static_cast<size_t>(axis)], inner = product(innerDims), outer = product(outerDims);
  ForKind kind = outer * inner * k >= (1 << 14) ? ctx.parallelKind() : ForKind::kSerial;
  return loop(ctx, "o", outer * inner, kind, [&](const Expr& oi) {
    Expr o = floorDivBy(oi, inner);
    Expr i = binary(BinaryOp::kFloorMod, oi, intImm(inner));
    return withScalar(ctx, "best", isMax ? lowest(vt) : highest(vt), [&](const Buffer& best) {
      return withScalar(ctx, "arg", intImm(0), [&](const Buffer& arg) {
        Stmt walk = loop(ctx, "k", k, ForKind::kSerial, [&](const Expr& kk) {
          Expr x = ctx.readFlat(xv, (o * intImm(k) + kk) * intImm(inner) + i);
          Expr b = load(best, intImm(0));
          CompareOp cmp = isMax ? (lastIndex ? CompareOp::kGE : CompareOp::kGT)
                                : (lastIndex ? CompareOp::kLE : CompareOp::kLT);
          Expr better = compare(cmp, x, b) || compare(CompareOp::kEQ, kk, intImm(0));
          if (vt.isFloat()) {
            // NaN is the extreme either way, as in numpy: the first (last) NaN wins.
            Expr xNan = compare(CompareOp::kNE, x, x), bIsNumber = compare(CompareOp::kEQ, b, b);
            better = lastIndex ? better || xNan : (better || xNan) && bIsNumber;
          }
          return seq({store(arg, intImm(0), select(better, kk, load(arg, intImm(0)))),
                      store(best, intImm(0), select(better, x, b))});
        });
        Index idx = unflatten(o, outerDims);
        if (keepDims) idx.push_back(intImm(0));
        Index in = unflatten(i, innerDims);
        idx.insert(idx.end(), in.begin(), in.end());
        return seq({walk, storeFn(idx, cast(ot, load(arg, intImm(0))))});
      });
    });
  });
}

}  // namespace

void addReduceLowerings(LoweringMap& table) {
  for (const char* name :
       {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}) {
    table[name].emit = emitReduce;
    table[name].symbolicSizes = true;
  }
  table["ArgMax"].emit = emitArg;
  table["ArgMin"].emit = emitArg;
}

}  // namespace kiln::kernel
