// Splitting a library's kernels into shards that LLVM compiles on separate threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kiln/tir/prim_func.h"

namespace kiln::codegen {

// A cheap estimate of the work LLVM does for F: the number of statement and expression nodes of
// its body, each vectorized loop's body counted twice (vector and scalar remainder).
int64_t estimateKernelCost(const tir::PrimFunc& f);

// Distributes FUNCS over min(SHARDS, funcs.size()) shards (at least one, possibly empty) so their
// estimated costs are balanced. Each shard lists indices into FUNCS in increasing order; the result
// depends only on FUNCS and SHARDS.
std::vector<std::vector<size_t>> partitionKernels(const std::vector<tir::PrimFunc>& funcs,
                                                  int shards);

}  // namespace kiln::codegen
