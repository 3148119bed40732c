// The graph passes, one per file under src/transform, each registered under a kebab-case name.
#pragma once

#include <string>
#include <vector>

#include "kiln/ir/graph.h"
#include "kiln/ir/pass.h"

namespace kiln::transform {

// fold-constants: replaces every node whose outputs ir::evaluateConstant can compute (shape
// chains, Shape of static types, arithmetic on constants) with constants.
void foldConstants(ir::Graph& graph);

// simplify: removes Identity, inference Dropout and Reshape/Flatten to the same shape, keeping a
// copy where a graph output would otherwise be a graph input, a constant, or listed twice.
void simplify(ir::Graph& graph);

// fold-batch-norm: folds BatchNormalization that follows a Conv with constant weights into the
// conv's weights and bias; any other BatchNormalization becomes Mul + Add with constant
// per-channel scale and shift.
void foldBatchNorm(ir::Graph& graph);

// fuse-layer-norm: the nine-node LayerNorm of exporters before opset 17 (ReduceMean, Sub, Pow 2
// or Mul, ReduceMean, Add epsilon, Sqrt, Div, then optional per-feature Mul and Add, over the last
// axis, float32) becomes one LayerNormalization.
void fuseLayerNorm(ir::Graph& graph);

// fuse-attention: softmax(Q Kᵀ · scale [+ mask | masked by Where]) V, as exporters spell it
// (MatMul, Transpose, Div or Mul by a constant, Add or Where, Softmax over the last axis, MatMul;
// repeat_kv's Unsqueeze/Expand/Reshape on K and V), with rank-4 float32 Q, K, V, becomes one
// kiln.Attention reading the key/value heads each group of query heads shares in place.
void fuseAttention(ir::Graph& graph);

// cache-in-place (after partition): a key/value cache exported as Concat(past, new) on the length
// axis of rank-4 tensors, where the past is a graph input with a symbolic length read by nothing
// else (but Shape) and the present is a graph output read only as the keys or values of
// kiln.Attention nodes whose keys and values are both such caches, becomes kiln.CacheAppend {axis,
// rows = the present's length at the bounds}, and those attentions get kv_rows = rows. planMemory
// then lays the past and the present out in one storage of ROWS rows per matrix, the append writes
// the new rows only, and the executor can carry a present into the next run's past without a copy.
void cacheInPlace(ir::Graph& graph);

// decompose-conv: a float Conv with constant weights over three or more spatial dims becomes one
// convolution over one dim fewer per tap of the kernel's leading spatial dim (the input's taps
// gathered, batched with the images), summed, until only 1-D and 2-D convolutions are left.
void decomposeConv(ir::Graph& graph);

// convert-layout: runs 2-D convolution chains in the channel-blocked layout NCHW[b]c (b = BLOCK,
// the target's fp32 vector lanes): float32 Conv with constant weights (group 1, depthwise, or
// groups of whole blocks) becomes kiln.ConvBlocked with weights packed here; pools,
// finite-preserving elementwise ops and channel Concats (of whole blocks) that consume blocked
// values run blocked too; kiln.LayoutTransform nodes convert at the edges of each chain. BLOCK <= 1
// leaves the graph as it is. Registered with BLOCK = 16; the driver runs it with the target's
// lanes.
void convertLayout(ir::Graph& graph, int64_t block);

// pack-matmul: float32 MatMul with a constant 2-D B, and Gemm (transA=0) with a constant B,
// become kiln.MatMulPacked with B packed in column panels of BLOCK (the target's fp32 vector
// lanes); Gemm's alpha is folded into the panels, beta * C becomes a following Add. BLOCK <= 1
// leaves the graph as it is. Registered with BLOCK = 16; the driver runs it with the target's
// lanes.
void packMatmul(ir::Graph& graph, int64_t block);

// fuse-ops: sets Node::group. The contract with kernel lowering (kernel/lower.h) is that every
// group has one of these forms:
//  (a) anchor: one kComplex or kReduction op, followed by kElementwise/kBroadcast ops producing
//      the anchor's output shape, each reading values of the group (a chain, or a DAG such as
//      GELU) and otherwise values from outside (constants or other groups' outputs, e.g. a
//      residual Add); only the last op's output is used outside the group;
//  (b) elementwise: kElementwise/kBroadcast ops only (a DAG), one output used outside;
//  (c) a single node of any class.
// At opt level 0 the pass is not run and every node is a group of form (c).
void fuseOps(ir::Graph& graph);

// concat-in-place (after fuse-ops): marks kiln.in_place = 1 on each Concat that is a group of its
// own and whose inputs are contiguous slabs of its output (every dim before the axis is 1), each
// computed by another group, read by nothing else, at a 64-byte aligned offset. planMemory then
// places the inputs inside the output and the Concat's kernel copies nothing.
void concatInPlace(ir::Graph& graph);

// All passes by name, for the driver's pipeline and for tests; the layout passes block channels and
// pack panels in LANES (the target's fp32 vector lanes, so a block is one register).
std::vector<ir::Pass> allPasses(int64_t lanes = 16);
ir::Pass findPass(const std::string& name, int64_t lanes = 16);  // throws kiln::Error listing names

}  // namespace kiln::transform
