// kiln.Attention: softmax(Q Kᵀ · scale, masked) V, blocked over the key length with a running
// (online) softmax, so no score matrix is written: per block, the scores, their maximum, the
// rescaling of what the earlier blocks summed, and the block's probabilities times its value rows.
// Prompts run in tiles of one query row per vector lane (TilePass); a decode step's single row
// runs as one task per row with its dot products vectorized over the head (RowPass). Query head
// h reads key and value head h / (H / KVH) in place.
#include <algorithm>
#include <functional>
#include <limits>

#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

struct Geometry {
  Index q, k, v;  // extents (this run's, when sized in symbols)
  // Rows between one key/value matrix and the next: the key length, or the cache's capacity
  // when K and V are caches written in place (kv_rows, cache-in-place).
  Expr rows;
  int64_t heads = 0, groups = 1, dim = 0, valueDim = 0;
};

Geometry geometryOf(LowerContext& ctx, const ir::Node& node) {
  const ir::Value *qv = node.inputs[0], *kv = node.inputs[1], *vv = node.inputs[2];
  Geometry g{ctx.extentsOf(qv), ctx.extentsOf(kv), ctx.extentsOf(vv), nullptr};
  opdef::DimList q = qv->type.dims(), k = kv->type.dims(), v = vv->type.dims();
  if (!q[3].isConst() || !v[3].isConst()) {
    unsupported(node, strCat("head dims ", q[3].str(), " and ", v[3].str(),
                             " are not static; kiln's kernel vectorizes over them"));
  }
  g.heads = q[1].value();
  g.groups = g.heads / k[1].value();
  g.dim = q[3].value();
  g.valueDim = v[3].value();
  g.rows = node.attrs.has("kv_rows") ? intImm(node.attrs.getInt("kv_rows")) : g.k[2];
  return g;
}

// BODY(j0, w) for every block of BLOCK keys of the LENGTH keys: its first key and its width.
Stmt overKeyBlocks(LowerContext& ctx, const Expr& length, int64_t block,
                   const std::function<Stmt(const Expr& j0, const Expr& w)>& body) {
  Expr blocks = binary(BinaryOp::kFloorDiv, length + intImm(block - 1), intImm(block));
  return loopRange(ctx, "kb", intImm(0), blocks, ForKind::kSerial, [&](const Expr& kb) {
    Index jw{kb * intImm(block), min(intImm(block), length - kb * intImm(block))};
    return bindVars(ctx, {"j0", "w"}, jw, [&](const Index& b) { return body(b[0], b[1]); });
  });
}

// The key/value matrix query head H of batch B reads: head H / groups of batch B.
Expr kvMatrix(const Geometry& g, const Expr& b, const Expr& h) {
  return b * intImm(g.heads / g.groups) + binary(BinaryOp::kFloorDiv, h, intImm(g.groups));
}

// One query row's pass over the keys (decode steps): the dot products vectorized over the head,
// the state a running max and sum, ACC the weighted values.
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
    Stmt init = seq({store(state_, intImm(0), constant(-std::numeric_limits<float>::max(), t_)),
                     store(state_, intImm(1), constant(0, t_)),
                     overValues([&](const Expr& c) { return store(acc_, c, constant(0, t_)); })});
    Stmt keys = overKeyBlocks(ctx_, g_.k[2], block_, [&](const Expr& j0, const Expr& w) {
      return seq({blockScores(row, idx, kvBase, j0, w), blockUpdate(kvBase, j0, w)});
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
      Expr keyRow = (kvBase * g_.rows + j0 + j) * intImm(g_.dim);
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
            Expr valueRow = (kvBase * g_.rows + j0 + j) * intImm(g_.valueDim);
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

// A tile of R query rows (one per vector lane) against the keys: the rows' queries transposed
// once per task, then per key one broadcast of each key element times the tile's column of
// queries, so the scores, the running softmax and the weighted values are all vector operations
// across the rows, with no horizontal sums. For prompts; a decode step's single row takes the
// row pass.
class TilePass {
 public:
  TilePass(LowerContext& ctx, const ir::Node& node, const Geometry& g, DataType t, int64_t r)
      : ctx_(ctx), node_(node), g_(g), t_(t), r_(r) {
    block_ = ctx.knob("tile_key_block", 64, 1, 256);
    qt_ = ctx.localBuffer("qt", t, {g.dim * r});
    acc_ = ctx.localBuffer("acc", t, {g.valueDim * r});
    scores_ = ctx.localBuffer("scores", t, {block_ * r});
    max_ = ctx.localBuffer("max", t, {r});
    newMax_ = ctx.localBuffer("new_max", t, {r});
    sum_ = ctx.localBuffer("sum", t, {r});
  }

  // The tile's first row I0 (of ROWS) of query head H in batch B, key/value matrix KV.
  Stmt emit(const Expr& b, const Expr& h, const Expr& i0, const Expr& rows, const Expr& kv,
            const StoreFn& storeFn) {
    const ir::Value* qv = node_.inputs[0];
    double scale = node_.attrs.getFloat("scale", 1.0);
    Expr qBase = ((b * intImm(g_.heads) + h) * g_.q[2] + i0) * intImm(g_.dim);
    Stmt zero = seq({lanes([&](const Expr& r) {
                       return store(max_, r, constant(-std::numeric_limits<float>::max(), t_));
                     }),
                     lanes([&](const Expr& r) { return store(sum_, r, constant(0, t_)); }),
                     loop(ctx_, "z", g_.dim * r_, ctx_.vectorKind(),
                          [&](const Expr& z) { return store(qt_, z, constant(0, t_)); }),
                     loop(ctx_, "z", g_.valueDim * r_, ctx_.vectorKind(),
                          [&](const Expr& z) { return store(acc_, z, constant(0, t_)); })});
    Stmt loadQ = loopRange(ctx_, "r", intImm(0), rows, ForKind::kSerial, [&](const Expr& r) {
      return loop(ctx_, "c", g_.dim, ForKind::kSerial, [&](const Expr& c) {
        return store(qt_, c * intImm(r_) + r,
                     ctx_.readFlat(qv, qBase + r * intImm(g_.dim) + c) * constant(scale, t_));
      });
    });
    Stmt keys = overKeyBlocks(ctx_, g_.k[2], block_, [&](const Expr& j0, const Expr& w) {
      return seq({blockScores(b, h, i0, rows, kv, j0, w), blockUpdate(kv, j0, w)});
    });
    Stmt out = loopRange(ctx_, "r", intImm(0), rows, ForKind::kSerial, [&](const Expr& r) {
      return loop(ctx_, "c", g_.valueDim, ctx_.vectorKind(), [&](const Expr& c) {
        return storeFn({b, h, i0 + r, c}, load(acc_, c * intImm(r_) + r) / load(sum_, r));
      });
    });
    Stmt body = seq({zero, loadQ, keys, out});
    for (const Buffer& buf : {qt_, acc_, scores_, max_, newMax_, sum_}) body = allocate(buf, body);
    return body;
  }

 private:
  Stmt lanes(const std::function<Stmt(const Expr&)>& f) {
    return loop(ctx_, "r", r_, ctx_.vectorKind(), f);
  }

  // scores[j][r] = q[r] · k[j0 + j] (the scale is in q), masked.
  Stmt blockScores(const Expr& b, const Expr& h, const Expr& i0, const Expr& rows, const Expr& kv,
                   const Expr& j0, const Expr& w) {
    const ir::Value* kvv = node_.inputs[1];
    return loopRange(ctx_, "j", intImm(0), w, ForKind::kSerial, [&](const Expr& j) {
      Expr keyRow = (kv * g_.rows + j0 + j) * intImm(g_.dim);
      Expr row = j * intImm(r_);
      Stmt init = lanes([&](const Expr& r) { return store(scores_, row + r, constant(0, t_)); });
      Stmt dot = loop(ctx_, "c", g_.dim, ForKind::kUnrolled, [&](const Expr& c) {
        return bindVar(ctx_, "kc", ctx_.readFlat(kvv, keyRow + c), [&](const Expr& kc) {
          return lanes([&](const Expr& r) {
            return store(scores_, row + r,
                         load(scores_, row + r) + load(qt_, c * intImm(r_) + r) * kc);
          });
        });
      });
      std::vector<Stmt> steps{init, dot};
      if (hasInput(node_, 3)) {
        steps.push_back(loopRange(ctx_, "r", intImm(0), rows, ForKind::kSerial, [&](const Expr& r) {
          Expr s = load(scores_, row + r);
          Expr m = inputAt(ctx_, node_, 3, {b, h, i0 + r, j0 + j});
          Expr v = node_.attrs.has("mask_fill")
                       ? select(m, s, constant(node_.attrs.getFloat("mask_fill", 0.0), t_))
                       : s + m;
          return store(scores_, row + r, v);
        }));
      }
      return seq(steps);
    });
  }

  // The running softmax of every row over one more block, and its values accumulated.
  Stmt blockUpdate(const Expr& kv, const Expr& j0, const Expr& w) {
    const ir::Value* vv = node_.inputs[2];
    auto overKeys = [&](const std::function<Stmt(const Expr&)>& f) {
      return loopRange(ctx_, "j", intImm(0), w, ForKind::kSerial, f);
    };
    Stmt maxima =
        seq({lanes([&](const Expr& r) { return store(newMax_, r, load(max_, r)); }),
             overKeys([&](const Expr& j) {
               return lanes([&](const Expr& r) {
                 return store(newMax_, r, max(load(newMax_, r), load(scores_, j * intImm(r_) + r)));
               });
             })});
    // max_ holds the rescale factor from here on, until the new maxima replace it.
    Stmt rescale = lanes([&](const Expr& r) {
      Expr f = call(Intrinsic::kExp, {load(max_, r) - load(newMax_, r)});
      return seq({store(sum_, r, load(sum_, r) * f), store(max_, r, f)});  // F reads max_
    });
    Stmt rescaleAcc = loop(ctx_, "c", g_.valueDim, ForKind::kSerial, [&](const Expr& c) {
      return lanes([&](const Expr& r) {
        return store(acc_, c * intImm(r_) + r, load(acc_, c * intImm(r_) + r) * load(max_, r));
      });
    });
    Stmt probs = overKeys([&](const Expr& j) {
      return lanes([&](const Expr& r) {
        Expr p = call(Intrinsic::kExp, {load(scores_, j * intImm(r_) + r) - load(newMax_, r)});
        return seq({store(scores_, j * intImm(r_) + r, p),
                    store(sum_, r, load(sum_, r) + load(scores_, j * intImm(r_) + r))});
      });
    });
    Stmt keep = lanes([&](const Expr& r) { return store(max_, r, load(newMax_, r)); });
    Stmt weigh = overKeys([&](const Expr& j) {
      Expr valueRow = (kv * g_.rows + j0 + j) * intImm(g_.valueDim);
      return loop(ctx_, "c", g_.valueDim, ForKind::kUnrolled, [&](const Expr& c) {
        return bindVar(ctx_, "vc", ctx_.readFlat(vv, valueRow + c), [&](const Expr& vc) {
          return lanes([&](const Expr& r) {
            return store(acc_, c * intImm(r_) + r,
                         load(acc_, c * intImm(r_) + r) + load(scores_, j * intImm(r_) + r) * vc);
          });
        });
      });
    });
    return seq({maxima, rescale, rescaleAcc, probs, keep, weigh});
  }

  LowerContext& ctx_;
  const ir::Node& node_;
  const Geometry& g_;
  DataType t_;
  int64_t r_, block_ = 64;
  Buffer qt_, acc_, scores_, max_, newMax_, sum_;
};

// Tiles of R query rows: one task per tile of every batch and head.
Stmt emitTiles(LowerContext& ctx, const ir::Node& node, const Geometry& g, DataType t,
               const StoreFn& storeFn, int64_t r) {
  TilePass pass(ctx, node, g, t, r);
  Expr seqLen = g.q[2];
  Expr tiles = binary(BinaryOp::kFloorDiv, seqLen + intImm(r - 1), intImm(r));
  Expr tasks = g.q[0] * intImm(g.heads) * tiles;
  return loopRange(ctx, "task", intImm(0), tasks, ctx.parallelKind(), [&](const Expr& task) {
    Expr bh = binary(BinaryOp::kFloorDiv, task, tiles);
    Index derived{binary(BinaryOp::kFloorMod, task, tiles) * intImm(r),
                  binary(BinaryOp::kFloorMod, bh, intImm(g.heads)),
                  binary(BinaryOp::kFloorDiv, bh, intImm(g.heads))};
    return bindVars(ctx, {"i0", "h", "b"}, derived, [&](const Index& d) {
      Index more{kvMatrix(g, d[2], d[1]), min(intImm(r), seqLen - d[0])};
      return bindVars(ctx, {"kv", "rows"}, more, [&](const Index& m) {
        return pass.emit(d[2], d[1], d[0], m[1], m[0], storeFn);
      });
    });
  });
}

Stmt emitRows(LowerContext& ctx, const ir::Node& node, const Geometry& g, DataType t,
              const StoreFn& storeFn) {
  RowPass pass(ctx, node, g, t);
  Expr seqLen = g.q[2];
  Expr rows = g.q[0] * intImm(g.heads) * seqLen;
  return loopRange(ctx, "row", intImm(0), rows, ctx.parallelKind(), [&](const Expr& row) {
    Expr bh = binary(BinaryOp::kFloorDiv, row, seqLen);
    Index derived{binary(BinaryOp::kFloorMod, row, seqLen),
                  binary(BinaryOp::kFloorMod, bh, intImm(g.heads)),
                  binary(BinaryOp::kFloorDiv, bh, intImm(g.heads))};
    return bindVars(ctx, {"i", "h", "b"}, derived, [&](const Index& d) {
      return bindVar(ctx, "kv", kvMatrix(g, d[2], d[1]), [&](const Expr& kv) {
        return pass.emit(row, {d[2], d[1], d[0]}, kv, storeFn);
      });
    });
  });
}

// Prompts (at least one vector of query rows per head) take the tiles, decode steps the rows.
Stmt emitAttention(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  DataType t = node.outputs[0]->type.dtype;
  if (t != DataType::float32()) unsupported(node, strCat("dtype ", t.str(), "; expected float32"));
  Geometry g = geometryOf(ctx, node);
  int64_t lanes = std::max(1, ctx.config().target.lanes);
  opdef::Dim seq = node.inputs[0]->type.dim(2);
  if (lanes < 4 || (seq.isConst() && seq.value() < lanes))
    return emitRows(ctx, node, g, t, storeFn);
  Stmt tiles = emitTiles(ctx, node, g, t, storeFn, lanes);
  if (seq.isConst()) return tiles;
  return ifThenElse(compare(CompareOp::kGE, g.q[2], intImm(lanes)), tiles,
                    emitRows(ctx, node, g, t, storeFn));
}

}  // namespace

void addAttentionLowerings(LoweringMap& table) {
  table["kiln.Attention"].emit = emitAttention;
  table["kiln.Attention"].symbolicSizes = true;
}

}  // namespace kiln::kernel
