// The runtime's op implementations, one function per ONNX op (src/runtime/runtime_op.cc lists
// them by name).
#pragma once

#include "kiln/runtime/runtime_op.h"

namespace kiln::runtime::ops {

void runAdagrad(RuntimeOpContext& ctx);
void runAdam(RuntimeOpContext& ctx);
void runAveragePool(RuntimeOpContext& ctx);
void runBatchNormalization(RuntimeOpContext& ctx);  // training mode
void runDropout(RuntimeOpContext& ctx);             // training_mode or ratio known at run time
void runBinary(RuntimeOpContext& ctx);              // ctx.op(): Add, Equal, ...
void runCast(RuntimeOpContext& ctx);                // also CastLike
// Cast where X or Y holds strings (strings.cc): numbers printed and parsed.
void castStrings(const RuntimeOpContext& ctx, const NDArray& x, NDArray& y);
void runStringNormalizer(RuntimeOpContext& ctx);
void runCompress(RuntimeOpContext& ctx);
void runConstantOfShape(RuntimeOpContext& ctx);
void runCumSum(RuntimeOpContext& ctx);
void runConv(RuntimeOpContext& ctx);
void runConvInteger(RuntimeOpContext& ctx);
void runDequantizeLinear(RuntimeOpContext& ctx);
void runDet(RuntimeOpContext& ctx);
void runDft(RuntimeOpContext& ctx);
void runMelWeightMatrix(RuntimeOpContext& ctx);
void runStft(RuntimeOpContext& ctx);
void runMatMulInteger(RuntimeOpContext& ctx);
void runQLinearConv(RuntimeOpContext& ctx);
void runQLinearMatMul(RuntimeOpContext& ctx);
void runQuantizeLinear(RuntimeOpContext& ctx);
void runEinsum(RuntimeOpContext& ctx);
void runEyeLike(RuntimeOpContext& ctx);
void runGatherND(RuntimeOpContext& ctx);
void runOneHot(RuntimeOpContext& ctx);
void runReverseSequence(RuntimeOpContext& ctx);
void runScatterElements(RuntimeOpContext& ctx);  // also Scatter
void runScatterND(RuntimeOpContext& ctx);
void runShrink(RuntimeOpContext& ctx);
void runExpand(RuntimeOpContext& ctx);
void runFlatten(RuntimeOpContext& ctx);
void runIdentity(RuntimeOpContext& ctx);
void runGridSample(RuntimeOpContext& ctx);
void runGru(RuntimeOpContext& ctx);
void runLstm(RuntimeOpContext& ctx);
// Control flow (control_flow.cc): the bodies run through RuntimeOpContext::body.
void runIf(RuntimeOpContext& ctx);
void runLoop(RuntimeOpContext& ctx);
void runScan(RuntimeOpContext& ctx);
void runMaxPool(RuntimeOpContext& ctx);
void runMaxUnpool(RuntimeOpContext& ctx);
void runRoiAlign(RuntimeOpContext& ctx);
void runMomentum(RuntimeOpContext& ctx);
void runRnn(RuntimeOpContext& ctx);
void runNonMaxSuppression(RuntimeOpContext& ctx);
void runNonZero(RuntimeOpContext& ctx);
void runPad(RuntimeOpContext& ctx);
void runRange(RuntimeOpContext& ctx);
void runReduceSum(RuntimeOpContext& ctx);
void runReshape(RuntimeOpContext& ctx);
void runResize(RuntimeOpContext& ctx);  // also Upsample
void runShape(RuntimeOpContext& ctx);
void runSize(RuntimeOpContext& ctx);
void runSlice(RuntimeOpContext& ctx);
void runSplit(RuntimeOpContext& ctx);
void runSqueeze(RuntimeOpContext& ctx);
void runTfIdfVectorizer(RuntimeOpContext& ctx);
void runTile(RuntimeOpContext& ctx);
void runTopK(RuntimeOpContext& ctx);
void runUnary(RuntimeOpContext& ctx);  // ctx.op(): Neg, Cos, ...
void runUnique(RuntimeOpContext& ctx);
void runWhere(RuntimeOpContext& ctx);
void runUnsqueeze(RuntimeOpContext& ctx);
// Sequences and optionals (sequence.cc).
void runSequenceEmpty(RuntimeOpContext& ctx);
void runSequenceConstruct(RuntimeOpContext& ctx);
void runSequenceInsert(RuntimeOpContext& ctx);
void runSequenceAt(RuntimeOpContext& ctx);
void runSequenceErase(RuntimeOpContext& ctx);
void runSequenceLength(RuntimeOpContext& ctx);
void runSplitToSequence(RuntimeOpContext& ctx);
void runConcatFromSequence(RuntimeOpContext& ctx);
void runOptional(RuntimeOpContext& ctx);
void runOptionalHasElement(RuntimeOpContext& ctx);
void runOptionalGetElement(RuntimeOpContext& ctx);

}  // namespace kiln::runtime::ops
