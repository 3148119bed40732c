// The runtime's op implementations, one function per ONNX op (src/runtime/runtime_op.cc lists
// them by name).
#pragma once

#include "kiln/runtime/runtime_op.h"

namespace kiln::runtime::ops {

void runBinary(RuntimeOpContext& ctx);  // ctx.op(): Add, Equal, ...
void runCast(RuntimeOpContext& ctx);
void runCompress(RuntimeOpContext& ctx);
void runConstantOfShape(RuntimeOpContext& ctx);
void runCumSum(RuntimeOpContext& ctx);
void runExpand(RuntimeOpContext& ctx);
void runFlatten(RuntimeOpContext& ctx);
void runIdentity(RuntimeOpContext& ctx);
void runNonZero(RuntimeOpContext& ctx);
void runPad(RuntimeOpContext& ctx);
void runRange(RuntimeOpContext& ctx);
void runReduceSum(RuntimeOpContext& ctx);
void runReshape(RuntimeOpContext& ctx);
void runShape(RuntimeOpContext& ctx);
void runSize(RuntimeOpContext& ctx);
void runSlice(RuntimeOpContext& ctx);
void runSplit(RuntimeOpContext& ctx);
void runSqueeze(RuntimeOpContext& ctx);
void runTile(RuntimeOpContext& ctx);
void runTopK(RuntimeOpContext& ctx);
void runUnary(RuntimeOpContext& ctx);  // ctx.op(): Neg, Cos, ...
void runUnique(RuntimeOpContext& ctx);
void runWhere(RuntimeOpContext& ctx);
void runUnsqueeze(RuntimeOpContext& ctx);

}  // namespace kiln::runtime::ops
