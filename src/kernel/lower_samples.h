// A fused group on a batch sized in the graph's symbols whose ops compute per sample
// (ir::OpDef::sampleInputs, plus pointwise ops): the kernel of one sample, at static sizes, inside
// a loop over the samples. The symbolic size enters that loop's bound only; the one-sample kernel
// keeps its blocked layouts, micro-kernels and schedule (its workload is the batch-1 workload).
#pragma once

#include <string>

#include "kiln/kernel/lower.h"
#include "kiln/kernel/lowering_table.h"

namespace kiln::kernel {

// Whether GROUP is lowered this way: it is sized in a symbolic batch, one of its ops computes per
// sample with a kernel that takes static sizes only, and every other op is pointwise on the batch.
bool lowersPerSample(const FusedGroup& group, const LoweringTable& lowerings);

// GROUP's kernel as a loop over its samples; GROUP must satisfy lowersPerSample.
LoweredKernel lowerPerSample(const FusedGroup& group, const std::string& symbol,
                             const ScheduleConfig& config);

}  // namespace kiln::kernel
