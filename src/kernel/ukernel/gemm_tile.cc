// The gemm micro-kernel: per reduction step, NV vector loads of B, MR scalar loads of A broadcast
// to all lanes, and MR*NV fused multiply-adds into accumulators that stay in vector registers
// (the accumulator buffer is only ever accessed at constant offsets, so LLVM keeps it in
// registers for the whole reduction).
#include "kiln/kernel/ukernel.h"
#include "kiln/support/error.h"

namespace kiln::kernel::ukernel {
namespace {

using namespace tir;  // NOLINT(google-build-using-namespace)

struct Builder {
  const GemmTile& tile;
  int lanes;
  const GemmOperands& ops;
  const NameFn& names;

  Expr accIndex(int r, int v) const {
    return ramp(intImm((static_cast<int64_t>(r) * tile.nv + v) * lanes), intImm(1), lanes);
  }

  // One reduction step at operand offsets A_OFF and B_OFF.
  Stmt step(const Expr& aOff, const Expr& bOff) const {
    std::vector<Expr> bVars, bVals;
    for (int v = 0; v < tile.nv; ++v) {
      bVars.push_back(var(names("b"), withLanes(ops.b->dtype, lanes)));
      bVals.push_back(load(ops.b, ramp(bOff + intImm(v * tile.bVectorStride), intImm(1), lanes)));
    }
    std::vector<Stmt> fmas;
    for (int r = 0; r < tile.mr; ++r) {
      Expr a = broadcast(load(ops.a, aOff + intImm(r * tile.aRowStride)), lanes);
      for (int v = 0; v < tile.nv; ++v) {
        Expr at = accIndex(r, v);
        fmas.push_back(store(ops.acc, at, fma(a, bVars[v], load(ops.acc, at))));
      }
    }
    Stmt body = seq(fmas);
    for (int v = tile.nv; v-- > 0;) body = let(bVars[v], bVals[v], body);
    return body;
  }

  // Loops I.. of the reduction at the offsets reached so far.
  Stmt loops(size_t i, const Expr& aOff, const Expr& bOff) const {
    const ReductionLoop& l = tile.loops[i];
    bool innermost = i + 1 == tile.loops.size();
    auto inner = [&](const Expr& k) {
      Expr a = aOff + k * intImm(l.aStride), b = bOff + k * intImm(l.bStride);
      return innermost ? step(a, b) : loops(i + 1, a, b);
    };
    if (!innermost || tile.unroll <= 1) return loop(l.extent, inner);
    // The innermost loop unrolled: UNROLL steps per iteration, then the remaining steps.
    int64_t u = tile.unroll;
    Expr main = binary(BinaryOp::kFloorDiv, l.extent, intImm(u));
    Stmt unrolled = loop(main, [&](const Expr& ko) {
      std::vector<Stmt> steps;
      for (int64_t j = 0; j < u; ++j) steps.push_back(inner(ko * intImm(u) + intImm(j)));
      return seq(steps);
    });
    Expr done = main * intImm(u);
    Expr rest = l.extent - done;
    if (isIntImm(rest, 0)) return unrolled;
    Expr k = var(names("k"));
    return seq({unrolled, forLoop(k, done, rest, ForKind::kSerial, inner(k))});
  }

  Stmt loop(const Expr& extent, const std::function<Stmt(const Expr&)>& body) const {
    if (isIntImm(extent, 1)) return body(intImm(0));
    if (isIntImm(extent) && extent->intValue <= 0) return seq({});
    Expr k = var(names("k"));
    return forLoop(k, intImm(0), extent, ForKind::kSerial, body(k));
  }
};

}  // namespace

std::string gemmName(const GemmTile& tile, const TargetModel& target) {
  return strCat("f32_gemm_", tile.mr, "x", tile.nv * target.lanes, "_", target.isa);
}

Stmt gemmTile(const GemmTile& tile, const TargetModel& target, const GemmOperands& ops,
              const NameFn& names) {
  KILN_CHECK(tile.mr >= 1 && tile.nv >= 1 && !tile.loops.empty(), "bad gemm tile ", tile.mr, "x",
             tile.nv);
  KILN_CHECK(ops.acc->numel() >= int64_t{tile.mr} * tile.nv * target.lanes, "accumulator ",
             ops.acc->name, " is smaller than the ", gemmName(tile, target), " tile");
  KILN_CHECK(ops.a->dtype == ops.b->dtype && ops.b->dtype == ops.acc->dtype,
             "gemm tile operands differ in dtype");
  Builder b{tile, target.lanes, ops, names};
  return b.loops(0, ops.aBase, ops.bBase);
}

}  // namespace kiln::kernel::ukernel
