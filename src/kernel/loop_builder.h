// Loop-nest building blocks with kiln's default schedules: chunked parallel elementwise nests and
// vectorized reductions with per-lane partial results.
#pragma once

#include <functional>
#include <string>

#include "index_math.h"
#include "lower_context.h"

namespace kiln::kernel {

using BodyFn = std::function<Stmt(const Expr& i)>;

// for (i = MIN; i < MIN + EXTENT; ++i) BODY(i); no loop when EXTENT is the immediate 1.
Stmt loopRange(LowerContext& ctx, const std::string& hint, Expr min, Expr extent, ForKind kind,
               const BodyFn& body);
Stmt loop(LowerContext& ctx, const std::string& hint, int64_t extent, ForKind kind,
          const BodyFn& body);

// The row tiles of block BLK when the M / MR full tiles of MR rows are dealt out PER_BLOCK to a
// block: that block's full tiles, then, in the last of BLOCKS blocks, the short tile of the M % MR
// rows left. BODY gets a tile's first row, its rows and its slot in the block (the short tile's is
// PER_BLOCK).
using RowTileFn = std::function<Stmt(const Expr& row0, int rows, const Expr& slot)>;
Stmt rowTilesOfBlock(LowerContext& ctx, const Expr& blk, int64_t perBlock, int64_t blocks,
                     int64_t m, int mr, const RowTileFn& body);
// The same for M rows known only when the kernel runs (a size in symbols): the short tile, of
// M % MR rows (1 to MR - 1, each its own specialised tile), runs in the block holding tile M / MR.
Stmt rowTilesOfBlock(LowerContext& ctx, const Expr& blk, int64_t perBlock, const Expr& m, int mr,
                     const RowTileFn& body);

// Loops over every index of SHAPE: the outer dimensions in one parallel loop (or fixed-size chunks
// of a 1-D shape), the innermost dimension vectorized. Knob "chunk" sets the 1-D chunk size.
Stmt elementwiseNest(LowerContext& ctx, const Dims& shape,
                     const std::function<Stmt(const Index&)>& body);

// The same over EXTENTS known only when the kernel runs, holding at most LARGEST elements (which
// decides whether the nest runs in parallel).
Stmt elementwiseNest(LowerContext& ctx, const Index& extents, int64_t largest,
                     const std::function<Stmt(const Index&)>& body);

using Combine = std::function<Expr(const Expr& acc, const Expr& x)>;
// Reduces VALUE(k) for k in [0, N) with COMBINE starting from INIT, keeping one partial result per
// vector lane, and emits THEN(result). COMBINE also merges the partial results, so it must be an
// associative merge (add, max, ...); per-element work belongs in VALUE.
Stmt reduceRange(LowerContext& ctx, DataType t, int64_t n, const Expr& init, const Combine& combine,
                 const std::function<Expr(const Expr& k)>& value,
                 const std::function<Stmt(const Expr& result)>& then);
// The same over N elements known when the kernel runs (a size in symbols).
Stmt reduceRange(LowerContext& ctx, DataType t, const Expr& n, const Expr& init,
                 const Combine& combine, const std::function<Expr(const Expr& k)>& value,
                 const std::function<Stmt(const Expr& result)>& then);

// A one-element local buffer used as a mutable scalar, initialised to INIT, live in BODY(buffer).
Stmt withScalar(LowerContext& ctx, const std::string& hint, const Expr& init,
                const std::function<Stmt(const Buffer&)>& body);

// Binds VALUE to a fresh immutable variable for BODY (unless it is already a variable or an
// immediate), so index arithmetic derived from a task number is computed once.
Stmt bindVar(LowerContext& ctx, const std::string& hint, const Expr& value,
             const std::function<Stmt(const Expr&)>& body);
// The same for several values at once.
Stmt bindVars(LowerContext& ctx, const std::vector<std::string>& hints, const Index& values,
              const std::function<Stmt(const Index&)>& body);

Expr add(const Expr& a, const Expr& b);

// The most elements of type T that each of COUNT local buffers live in one kernel may hold within
// the stack budget (kMaxLocalBufferBytes each, kMaxLocalBytesPerKernel together); at least 1.
int64_t localElementsCap(DataType t, int64_t count = 1);

}  // namespace kiln::kernel
