// Ops that compute per sample (OpDef::sampleInputs) on a batch sized in the graph's symbols: their
// types come from one sample's, and their kernels loop over the samples (kernel/lower_samples).
#pragma once

#include <optional>

#include "kiln/ir/graph.h"
#include "kiln/ir/op_registry.h"

namespace kiln::ir {

// Whether TYPE is a tensor whose dim 0 is a size in the bounded symbols of BOUNDS and whose other
// dims are static: a batch of samples.
bool isSymbolicBatch(const TensorType& type, const opdef::DimBounds& bounds);

// TYPE (a batch) at one sample: dim 0 is 1.
TensorType sampleType(const TensorType& type);

// The size dim 0 of NODE's inputs share when NODE's op computes per sample, those of its inputs
// that are not static are among OpDef::sampleInputs and each is a symbolic batch
// (isSymbolicBatch) of that one size; nullopt otherwise.
std::optional<opdef::Dim> symbolicBatch(const Node& node);

// Sets NODE's output types from DEF's inference on one sample: each output is its type at batch 1
// with dim 0 BATCH. Throws kiln::Error, naming the node, when an output's dim 0 at one sample is
// not 1 (the op does not compute per sample at these attributes).
void inferPerSample(Node& node, const OpDef& def, const opdef::Dim& batch);

}  // namespace kiln::ir
