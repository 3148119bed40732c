// Longest-processing-time-first over estimated costs: simple, deterministic and within 4/3 of the
// best split, which is plenty when the estimate itself is rough.
#include "partition_kernels.h"

#include <algorithm>
#include <numeric>

#include "kiln/support/error.h"

namespace kiln::codegen {
namespace {

int64_t exprCost(const tir::Expr& e) {
  if (e == nullptr) return 0;
  int64_t cost = 1 + exprCost(e->a) + exprCost(e->b) + exprCost(e->c) + exprCost(e->index);
  for (const tir::Expr& arg : e->args) cost += exprCost(arg);
  return cost;
}

int64_t stmtCost(const tir::Stmt& s) {
  if (s == nullptr) return 0;
  int64_t cost =
      1 + exprCost(s->min) + exprCost(s->extent) + exprCost(s->index) + exprCost(s->value);
  int64_t body = stmtCost(s->body);
  if (s->kind == tir::StmtKind::kFor && s->forKind == tir::ForKind::kVectorized) body *= 2;
  cost += body + stmtCost(s->elseBody);
  for (const tir::Stmt& child : s->seq) cost += stmtCost(child);
  return cost;
}

}  // namespace

int64_t estimateKernelCost(const tir::PrimFunc& f) {
  return 1 + static_cast<int64_t>(f.params.size()) + stmtCost(f.body);
}

std::vector<std::vector<size_t>> partitionKernels(const std::vector<tir::PrimFunc>& funcs,
                                                  int shards) {
  KILN_CHECK(shards >= 1, "partitioning kernels into ", shards, " shards");
  size_t count = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(shards), funcs.size()));
  std::vector<int64_t> cost(funcs.size());
  for (size_t i = 0; i < funcs.size(); ++i) cost[i] = estimateKernelCost(funcs[i]);
  std::vector<size_t> order(funcs.size());
  std::iota(order.begin(), order.end(), 0);
  // Ties keep input order, so the split is reproducible.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return cost[a] > cost[b]; });

  std::vector<std::vector<size_t>> result(count);
  std::vector<int64_t> load(count, 0);
  for (size_t i : order) {
    size_t lightest = std::min_element(load.begin(), load.end()) - load.begin();
    result[lightest].push_back(i);
    load[lightest] += cost[i];
  }
  for (std::vector<size_t>& shard : result) std::sort(shard.begin(), shard.end());
  return result;
}

}  // namespace kiln::codegen
