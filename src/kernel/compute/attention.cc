// kiln.Attention: softmax(Q Kᵀ · scale, masked) V with one parallel task per query row, blocked
// over the key length with a running (online) softmax, so the row's scores never exceed one
// block and no score matrix is written: per block, the scores (dot products vectorized over the
// head dim), their maximum, the rescaling of what the earlier blocks summed, and the block's
// probabilities times its value rows (vectorized over the value dim). Query head h reads key and
// value head h / (H / KVH) in place.
#include <algorithm>
#include <limits>

#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

struct Geometry {
  Index q, k, v;  // extents (this run's, when sized in symbols)
  int64_t heads = 0, groups = 1, dim = 0, valueDim = 0;
};

Geometry geometryOf(LowerContext& ctx, const ir::Node& node) {
  const ir::Value *qv = node.inputs[0], *kv = node.inputs[1], *vv = node.inputs[2];
  Geometry g{ctx.extentsOf(qv), ctx.extentsOf(kv), ctx.extentsOf(vv)};
  opdef::DimList q = qv->type.dims(), k = kv->type.dims(), v = vv->type.dims();
  if (!q[3].isConst() || !v[3].isConst()) {
    unsupported(node, strCat("head dims ", q[3].str(), " and ", v[3].str(),
                             " are not static; kiln's kernel vectorizes over them"));
  }
  g.heads = q[1].value();
  g.groups = g.heads / k[1].value();
  g.dim = q[3].value();
  g.valueDim = v[3].value();
  return g;
}

// One query row's pass over the keys: S running max, L running sum, ACC the weighted values.
class RowPass {
 public:
  RowPass(LowerContext& ctx, const ir::Node& node, const Geometry& g, DataType t)
      : ctx_(ctx), node_(node), g_(g), t_(t) {
    block_ = ctx.knob("key_block", 64, 1, localElementsCap(t, 2));
    scores_ = ctx.localBuffer("scores", t, {block_});
    acc_ = ctx.localBuffer("acc", t, {g.valueDim});
    state_ = ctx.localBuffer("state", t, {2});  // running max, running sum
  }

  // ROW indexes the query rows [B, H, S] flattened; IDX is (b, h, i).
  Stmt emit(const Expr& row, const Index& idx, const Expr& kvBase, const StoreFn& storeFn) {
    Expr length = g_.k[2];
    Expr blocks = binary(BinaryOp::kFloorDiv, length + intImm(block_ - 1), intImm(block_));
    Stmt init = seq({store(state_, intImm(0), constant(-std::numeric_limits<float>::max(), t_)),
                     store(state_, intImm(1), constant(0, t_)),
                     overValues([&](const Expr& c) { return store(acc_, c, constant(0, t_)); })});
    Stmt keys = loopRange(ctx_, "kb", intImm(0), blocks, ForKind::kSerial, [&](const Expr& kb) {
      Index jw{kb * intImm(block_), min(intImm(block_), length - kb * intImm(block_))};
      return bindVars(ctx_, {"j0", "w"}, jw, [&](const Index& b) {
        return seq({blockScores(row, idx, kvBase, b[0], b[1]), blockUpdate(kvBase, b[0], b[1])});
      });
    });
    Stmt out = overValues([&](const Expr& c) {
      return storeFn({idx[0], idx[1], idx[2], c}, load(acc_, c) / load(state_, intImm(1)));
    });
    return allocate(scores_, allocate(acc_, allocate(state_, seq({init, keys, out}))));
  }

 private:
  Stmt overValues(const std::function<Stmt(const Expr&)>& f) {
    return loop(ctx_, "c", g_.valueDim, ctx_.vectorKind(), f);
  }

  // scores[j] = (q · k[j0 + j]) · scale, masked, for j < W.
  Stmt blockScores(const Expr& row, const Index& idx, const Expr& kvBase, const Expr& j0,
                   const Expr& w) {
    const ir::Value *qv = node_.inputs[0], *kv = node_.inputs[1];
    double scale = node_.attrs.getFloat("scale", 1.0);
    return loopRange(ctx_, "j", intImm(0), w, ForKind::kSerial, [&](const Expr& j) {
      Expr keyRow = (kvBase * g_.k[2] + j0 + j) * intImm(g_.dim);
      return reduceRange(
          ctx_, t_, g_.dim, constant(0, t_), add,
          [&](const Expr& c) {
            return ctx_.readFlat(qv, row * intImm(g_.dim) + c) * ctx_.readFlat(kv, keyRow + c);
          },
          [&](const Expr& dot) {
            return store(scores_, j, masked(idx, j0 + j, dot * constant(scale, t_)));
          });
    });
  }

  Expr masked(const Index& idx, const Expr& key, const Expr& score) {
    if (!hasInput(node_, 3)) return score;
    Expr m = inputAt(ctx_, node_, 3, {idx[0], idx[1], idx[2], key});
    if (!node_.attrs.has("mask_fill")) return score + m;
    return select(m, score, constant(node_.attrs.getFloat("mask_fill", 0.0), t_));
  }

  // The running softmax over one more block of W scores, and its values accumulated.
  Stmt blockUpdate(const Expr& kvBase, const Expr& j0, const Expr& w) {
    const ir::Value* vv = node_.inputs[2];
    auto maxOf = [](const Expr& a, const Expr& b) { return max(a, b); };
    auto score = [&](const Expr& j) { return load(scores_, j); };
    return reduceRange(ctx_, t_, w, lowest(t_), maxOf, score, [&](const Expr& blockMax) {
      Expr previous = load(state_, intImm(0));
      return bindVar(ctx_, "m", max(previous, blockMax), [&](const Expr& m) {
        return bindVar(ctx_, "rescale", call(Intrinsic::kExp, {previous - m}), [&](const Expr& r) {
          Stmt rescale =
              overValues([&](const Expr& c) { return store(acc_, c, load(acc_, c) * r); });
          Stmt probs = loopRange(ctx_, "j", intImm(0), w, ctx_.vectorKind(), [&](const Expr& j) {
            return store(scores_, j, call(Intrinsic::kExp, {load(scores_, j) - m}));
          });
          Stmt sum = reduceRange(ctx_, t_, w, constant(0, t_), add, score, [&](const Expr& s) {
            return seq({store(state_, intImm(1), load(state_, intImm(1)) * r + s),
                        store(state_, intImm(0), m)});
          });
          Stmt weigh = loopRange(ctx_, "j", intImm(0), w, ForKind::kSerial, [&](const Expr& j) {
            Expr valueRow = (kvBase * g_.k[2] + j0 + j) * intImm(g_.valueDim);
            return bindVar(ctx_, "p", load(scores_, j), [&](const Expr& p) {
              return overValues([&](const Expr& c) {
                return store(acc_, c, load(acc_, c) + p * ctx_.readFlat(vv, valueRow + c));
              });
            });
          });
          return seq({rescale, probs, sum, weigh});
        });
      });
    });
  }

  LowerContext& ctx_;
  const ir::Node& node_;
  const Geometry& g_;
  DataType t_;
  int64_t block_ = 64;
  Buffer scores_, acc_, state_;
};

Stmt emitAttention(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  DataType t = node.outputs[0]->type.dtype;
  if (t != DataType::float32()) unsupported(node, strCat("dtype ", t.str(), "; expected float32"));
  Geometry g = geometryOf(ctx, node);
  RowPass pass(ctx, node, g, t);
  Expr seqLen = g.q[2];
  Expr rows = g.q[0] * intImm(g.heads) * seqLen;
  return loopRange(ctx, "row", intImm(0), rows, ctx.parallelKind(), [&](const Expr& row) {
    Expr bh = binary(BinaryOp::kFloorDiv, row, seqLen);
    Index derived{binary(BinaryOp::kFloorMod, row, seqLen),
                  binary(BinaryOp::kFloorMod, bh, intImm(g.heads)),
                  binary(BinaryOp::kFloorDiv, bh, intImm(g.heads))};
    return bindVars(ctx, {"i", "h", "b"}, derived, [&](const Index& d) {
      // The key/value head's matrix: batch b, head h / groups.
      Expr kvHead =
          d[2] * intImm(g.heads / g.groups) + binary(BinaryOp::kFloorDiv, d[1], intImm(g.groups));
      return bindVar(ctx, "kv", kvHead, [&](const Expr& kv) {
        return pass.emit(row, {d[2], d[1], d[0]}, kv, storeFn);
      });
    });
  });
}

}  // namespace

void addAttentionLowerings(LoweringMap& table) {
  table["kiln.Attention"].emit = emitAttention;
  table["kiln.Attention"].symbolicSizes = true;
}

}  // namespace kiln::kernel
