// Loop-nest building blocks with kiln's default schedules.
#include "loop_builder.h"

#include <algorithm>

#include "kiln/support/error.h"

namespace kiln::kernel {

Expr add(const Expr& a, const Expr& b) { return a + b; }

Stmt bindVar(LowerContext& ctx, const std::string& hint, const Expr& value,
             const std::function<Stmt(const Expr&)>& body) {
  if (value->kind == ExprKind::kVar || value->kind == ExprKind::kIntImm ||
      value->kind == ExprKind::kFloatImm) {
    return body(value);
  }
  Expr v = ctx.freshVar(hint, value->dtype);
  return let(v, value, body(v));
}

Stmt bindVars(LowerContext& ctx, const std::vector<std::string>& hints, const Index& values,
              const std::function<Stmt(const Index&)>& body) {
  std::function<Stmt(size_t, Index)> step = [&](size_t k, Index bound) -> Stmt {
    if (k == values.size()) return body(bound);
    std::string hint = k < hints.size() ? hints[k] : strCat("d", k);
    return bindVar(ctx, hint, values[k], [&](const Expr& v) {
      bound.push_back(v);
      return step(k + 1, bound);
    });
  };
  return step(0, {});
}

Stmt loopRange(LowerContext& ctx, const std::string& hint, Expr min, Expr extent, ForKind kind,
               const BodyFn& body) {
  if (extent->kind == ExprKind::kIntImm && extent->intValue == 1) return body(min);
  if (extent->kind == ExprKind::kIntImm && extent->intValue <= 0) return seq({});
  Expr v = ctx.freshVar(hint);
  return forLoop(v, std::move(min), std::move(extent), kind, body(v));
}

Stmt loop(LowerContext& ctx, const std::string& hint, int64_t extent, ForKind kind,
          const BodyFn& body) {
  return loopRange(ctx, hint, intImm(0), intImm(extent), kind, body);
}

Stmt rowTilesOfBlock(LowerContext& ctx, const Expr& blk, int64_t perBlock, int64_t blocks,
                     int64_t m, int mr, const RowTileFn& body) {
  int64_t full = m / mr, rem = m % mr;
  Expr first = blk * intImm(perBlock);
  Expr count = max(intImm(0), min(intImm(perBlock), intImm(full) - first));
  Stmt tiles = loopRange(ctx, "tile", first, count, ForKind::kSerial,
                         [&](const Expr& t) { return body(t * intImm(mr), mr, t - first); });
  if (rem == 0) return tiles;
  Stmt last = body(intImm(full * mr), static_cast<int>(rem), intImm(perBlock));
  return seq({tiles, ifThenElse(compare(CompareOp::kEQ, blk, intImm(blocks - 1)), last)});
}

Stmt rowTilesOfBlock(LowerContext& ctx, const Expr& blk, int64_t perBlock, const Expr& m, int mr,
                     const RowTileFn& body) {
  Expr full = floorDivBy(m, mr);
  Expr first = blk * intImm(perBlock);
  Expr count = max(intImm(0), min(intImm(perBlock), full - first));
  Stmt tiles = loopRange(ctx, "tile", first, count, ForKind::kSerial,
                         [&](const Expr& t) { return body(t * intImm(mr), mr, t - first); });
  if (mr == 1) return tiles;
  Expr rem = binary(BinaryOp::kFloorMod, m, intImm(mr));
  std::vector<Stmt> shortTiles;
  for (int rows = 1; rows < mr; ++rows) {
    shortTiles.push_back(ifThenElse(compare(CompareOp::kEQ, rem, intImm(rows)),
                                    body(full * intImm(mr), rows, intImm(perBlock))));
  }
  Expr holdsShort = compare(CompareOp::kEQ, blk, floorDivBy(full, perBlock));
  return seq({tiles, ifThenElse(holdsShort, seq(shortTiles))});
}

namespace {

// Enough work per parallel task to amortise the pool's dispatch.
constexpr int64_t kMinParallelElements = 1 << 14;

Stmt flatNest(LowerContext& ctx, int64_t n, const std::function<Stmt(const Index&)>& body) {
  int64_t lanes = std::max(1, ctx.config().target.lanes);
  int64_t chunk = ctx.knob("chunk", std::max<int64_t>(lanes * 256, 4096));
  chunk = std::max<int64_t>(1, chunk);
  if (n < kMinParallelElements || n <= chunk || ctx.parallelKind() != ForKind::kParallel) {
    return loop(ctx, "i", n, ctx.vectorKind(), [&](const Expr& i) { return body({i}); });
  }
  int64_t chunks = ceilDiv(n, chunk);
  return loop(ctx, "chunk", chunks, ForKind::kParallel, [&](const Expr& c) {
    Expr start = c * intImm(chunk);
    Expr extent = n % chunk == 0 ? intImm(chunk) : min(intImm(chunk), intImm(n) - start);
    return loopRange(ctx, "i", start, extent, ctx.vectorKind(),
                     [&](const Expr& i) { return body({i}); });
  });
}

}  // namespace

Stmt elementwiseNest(LowerContext& ctx, const Dims& shape,
                     const std::function<Stmt(const Index&)>& body) {
  if (product(shape) == 0) return seq({});
  if (shape.empty()) return body({});
  if (shape.size() == 1) return flatNest(ctx, shape[0], body);
  Dims outer(shape.begin(), shape.end() - 1);
  int64_t inner = shape.back();
  int64_t nOuter = product(outer);
  ForKind outerKind =
      nOuter * inner >= kMinParallelElements && nOuter > 1 ? ctx.parallelKind() : ForKind::kSerial;
  return loop(ctx, "o", nOuter, outerKind, [&](const Expr& o) {
    return bindVars(ctx, {}, unflatten(o, outer), [&](const Index& idx) {
      return loop(ctx, "i", inner, ctx.vectorKind(), [&](const Expr& i) {
        Index full = idx;
        full.push_back(i);
        return body(full);
      });
    });
  });
}

Stmt elementwiseNest(LowerContext& ctx, const Index& extents, int64_t largest,
                     const std::function<Stmt(const Index&)>& body) {
  if (largest == 0) return seq({});
  if (extents.empty()) return body({});
  ForKind outerKind = largest >= kMinParallelElements ? ctx.parallelKind() : ForKind::kSerial;
  if (extents.size() == 1) {
    int64_t lanes = std::max(1, ctx.config().target.lanes);
    int64_t chunk = std::max<int64_t>(1, ctx.knob("chunk", std::max<int64_t>(lanes * 256, 4096)));
    const Expr& n = extents[0];
    if (outerKind != ForKind::kParallel || largest <= chunk) {
      return loopRange(ctx, "i", intImm(0), n, ctx.vectorKind(),
                       [&](const Expr& i) { return body({i}); });
    }
    Expr chunks = ceilDivBy(n, chunk);
    return loopRange(ctx, "chunk", intImm(0), chunks, ForKind::kParallel, [&](const Expr& c) {
      Expr start = c * intImm(chunk);
      return loopRange(ctx, "i", start, min(intImm(chunk), n - start), ctx.vectorKind(),
                       [&](const Expr& i) { return body({i}); });
    });
  }
  Index outer(extents.begin(), extents.end() - 1);
  return loopRange(ctx, "o", intImm(0), productOf(outer), outerKind, [&](const Expr& o) {
    return bindVars(ctx, {}, unflatten(o, outer), [&](const Index& idx) {
      return loopRange(ctx, "i", intImm(0), extents.back(), ctx.vectorKind(), [&](const Expr& i) {
        Index full = idx;
        full.push_back(i);
        return body(full);
      });
    });
  });
}

Stmt withScalar(LowerContext& ctx, const std::string& hint, const Expr& init,
                const std::function<Stmt(const Buffer&)>& body) {
  Buffer b = ctx.localBuffer(hint, init->dtype, {1});
  return allocate(b, seq({store(b, intImm(0), init), body(b)}));
}

namespace {

// One partial result per lane over FULL chunks of a vector, then the elements from TAIL_START to
// N one by one into lane 0, then the lanes folded.
Stmt reduceByLanes(LowerContext& ctx, DataType t, const Expr& full, const Expr& tailStart,
                   const Expr& tailCount, const Expr& init, const Combine& combine,
                   const std::function<Expr(const Expr& k)>& value,
                   const std::function<Stmt(const Expr& result)>& then) {
  int64_t lanes = std::max(1, ctx.config().target.lanes);
  Buffer part = ctx.localBuffer("part", t, {lanes});
  Stmt initParts =
      loop(ctx, "l", lanes, ctx.vectorKind(), [&](const Expr& l) { return store(part, l, init); });
  Stmt main = loopRange(ctx, "kc", intImm(0), full, ForKind::kSerial, [&](const Expr& c) {
    return loop(ctx, "l", lanes, ctx.vectorKind(), [&](const Expr& l) {
      return store(part, l, combine(load(part, l), value(c * intImm(lanes) + l)));
    });
  });
  Stmt tail = loopRange(ctx, "k", tailStart, tailCount, ForKind::kSerial, [&](const Expr& k) {
    return store(part, intImm(0), combine(load(part, intImm(0)), value(k)));
  });
  Stmt finish = withScalar(ctx, "acc", load(part, intImm(0)), [&](const Buffer& acc) {
    Stmt fold =
        loopRange(ctx, "l", intImm(1), intImm(lanes - 1), ForKind::kSerial, [&](const Expr& l) {
          return store(acc, intImm(0), combine(load(acc, intImm(0)), load(part, l)));
        });
    return seq({fold, then(load(acc, intImm(0)))});
  });
  return allocate(part, seq({initParts, main, tail, finish}));
}

}  // namespace

Stmt reduceRange(LowerContext& ctx, DataType t, int64_t n, const Expr& init, const Combine& combine,
                 const std::function<Expr(const Expr& k)>& value,
                 const std::function<Stmt(const Expr& result)>& then) {
  int64_t lanes = std::max(1, ctx.config().target.lanes);
  if (n < 2 * lanes) {
    return withScalar(ctx, "acc", init, [&](const Buffer& acc) {
      Stmt body = loop(ctx, "k", n, ForKind::kSerial, [&](const Expr& k) {
        return store(acc, intImm(0), combine(load(acc, intImm(0)), value(k)));
      });
      return seq({body, then(load(acc, intImm(0)))});
    });
  }
  int64_t full = n / lanes;
  return reduceByLanes(ctx, t, intImm(full), intImm(full * lanes), intImm(n - full * lanes), init,
                       combine, value, then);
}

Stmt reduceRange(LowerContext& ctx, DataType t, const Expr& n, const Expr& init,
                 const Combine& combine, const std::function<Expr(const Expr& k)>& value,
                 const std::function<Stmt(const Expr& result)>& then) {
  if (isIntImm(n)) return reduceRange(ctx, t, n->intValue, init, combine, value, then);
  int64_t lanes = std::max(1, ctx.config().target.lanes);
  Expr full = floorDivBy(n, lanes);
  return bindVar(ctx, "full", full, [&](const Expr& f) {
    Expr start = f * intImm(lanes);
    return reduceByLanes(ctx, t, f, start, n - start, init, combine, value, then);
  });
}

int64_t localElementsCap(DataType t, int64_t count) {
  int64_t bytes =
      std::min(kMaxLocalBufferBytes, kMaxLocalBytesPerKernel / std::max<int64_t>(1, count));
  return std::max<int64_t>(1, bytes / std::max<int64_t>(1, static_cast<int64_t>(t.bytes())));
}

}  // namespace kiln::kernel
