// The table of op lowerings: how each graph op becomes loop IR, filled by one function per op
// family.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "../lower_context.h"
#include "kiln/kernel/lower.h"
#include "kiln/kernel/lowering_table.h"

namespace kiln::kernel {

struct OpLowering {
  // Ops whose outputs are pure functions of input elements: one accessor per output (null for an
  // output that cannot be computed this way).
  std::function<std::vector<Accessor>(LowerContext&, const ir::Node&)> compute;
  // Anchor ops that run their own loops: emits the computation of output 0, handing every
  // element to STORE (which applies the group's epilogue).
  std::function<Stmt(LowerContext&, const ir::Node&, const StoreFn&)> emit;
  // Output element idx reads input elements at the numpy-broadcast of idx only, so dimensions of
  // a group of such ops may be collapsed.
  bool pointwise = false;
  // Output 0 holds input 0's elements in the same flat order (Reshape and friends).
  bool flatCopy = false;
  // Takes tensors sized in symbols (LowerContext::symbolic): the anchor's emit, or the compute
  // op's reads (index mappings that need no static size).
  bool symbolicSizes = false;
};

// What the families fill; the builtin LoweringTable is made from it.
using LoweringMap = std::map<std::string, OpLowering>;

// One per family, each in its own file.
void addElementwiseLowerings(LoweringMap& table);
void addInjectiveLowerings(LoweringMap& table);
void addConvLowerings(LoweringMap& table);
void addPoolLowerings(LoweringMap& table);
void addMatmulLowerings(LoweringMap& table);
void addAttentionLowerings(LoweringMap& table);  // kiln.Attention
void addCacheLowerings(LoweringMap& table);      // kiln.CacheAppend
void addSoftmaxLowerings(LoweringMap& table);
void addReduceLowerings(LoweringMap& table);
void addBatchNormLowerings(LoweringMap& table);
void addBlockedLayoutLowerings(LoweringMap& table);  // kiln.ConvBlocked, PoolBlocked, ...

// Helpers shared by the families.

// ConvTranspose (conv_transpose.cc), registered with the conv family.
Stmt emitConvTranspose(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn);
// The blocked-layout family: conv_blocked.cc (group 1), dwconv_blocked.cc (depthwise),
// layout_transform.cc.
Stmt emitConvBlocked(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn);
Stmt emitDepthwiseBlocked(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn);
OpLowering layoutTransformLowering();
// kiln.MatMulPacked (matmul_packed.cc).
Stmt emitMatMulPacked(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn);

// Input I of NODE at the numpy broadcast of output index OUT_IDX; null for an omitted input.
Expr inputAt(LowerContext& ctx, const ir::Node& node, size_t i, const Index& outIdx);
bool hasInput(const ir::Node& node, size_t i);
// The int64 values of constant input I (int32 or int64); kiln::Error when it is not a constant.
std::vector<int64_t> constantInts(const ir::Node& node, size_t i, const std::string& what);
// A pointwise op: output 0 = F(node, inputs at the broadcast index), inputs may be null.
OpLowering pointwiseOp(const std::function<Expr(const ir::Node&, const std::vector<Expr>&)>& f);
int64_t normalizeAxis(const ir::Node& node, int64_t axis, int64_t rank);

}  // namespace kiln::kernel
