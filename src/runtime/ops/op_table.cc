// The table of ops the runtime executes itself, by ONNX op type, registered with the core as
// this library loads.
#include "kiln/runtime/runtime_op.h"
#include "runtime_ops.h"

namespace kiln::runtime {
namespace {

const RuntimeOpTable& table() {
  static const RuntimeOpTable kOps = {
      {"Compress", ops::runCompress},
      {"ConstantOfShape", ops::runConstantOfShape},
      {"CumSum", ops::runCumSum},
      {"Expand", ops::runExpand},
      {"Flatten", ops::runFlatten},
      {"Identity", ops::runIdentity},
      {"NonZero", ops::runNonZero},
      {"Pad", ops::runPad},
      {"Range", ops::runRange},
      {"ReduceSum", ops::runReduceSum},
      {"Reshape", ops::runReshape},
      {"Shape", ops::runShape},
      {"Size", ops::runSize},
      {"Slice", ops::runSlice},
      {"Split", ops::runSplit},
      {"Squeeze", ops::runSqueeze},
      {"Tile", ops::runTile},
      {"TopK", ops::runTopK},
      {"Unique", ops::runUnique},
      {"Unsqueeze", ops::runUnsqueeze},
      {"Cast", ops::runCast},
      {"CastLike", ops::runCast},
      {"StringNormalizer", ops::runStringNormalizer},
      {"Where", ops::runWhere},
      {"Resize", ops::runResize},
      {"Upsample", ops::runResize},
      {"NonMaxSuppression", ops::runNonMaxSuppression},
      {"ScatterElements", ops::runScatterElements},
      {"Scatter", ops::runScatterElements},
      {"ScatterND", ops::runScatterND},
      {"GatherND", ops::runGatherND},
      {"OneHot", ops::runOneHot},
      {"EyeLike", ops::runEyeLike},
      {"Shrink", ops::runShrink},
      {"ReverseSequence", ops::runReverseSequence},
      {"Det", ops::runDet},
      {"QuantizeLinear", ops::runQuantizeLinear},
      {"DequantizeLinear", ops::runDequantizeLinear},
      {"MatMulInteger", ops::runMatMulInteger},
      {"QLinearMatMul", ops::runQLinearMatMul},
      {"Conv", ops::runConv},
      {"ConvInteger", ops::runConvInteger},
      {"QLinearConv", ops::runQLinearConv},
      {"Adagrad", ops::runAdagrad},
      {"Momentum", ops::runMomentum},
      {"Adam", ops::runAdam},
      {"Einsum", ops::runEinsum},
      {"GridSample", ops::runGridSample},
      {"BatchNormalization", ops::runBatchNormalization},
      {"Dropout", ops::runDropout},
      {"MaxPool", ops::runMaxPool},
      {"AveragePool", ops::runAveragePool},
      {"MaxUnpool", ops::runMaxUnpool},
      {"RoiAlign", ops::runRoiAlign},
      {"DFT", ops::runDft},
      {"TfIdfVectorizer", ops::runTfIdfVectorizer},
      {"STFT", ops::runStft},
      {"MelWeightMatrix", ops::runMelWeightMatrix},
      {"RNN", ops::runRnn},
      {"GRU", ops::runGru},
      {"LSTM", ops::runLstm},
      {"SequenceEmpty", ops::runSequenceEmpty},
      {"SequenceConstruct", ops::runSequenceConstruct},
      {"SequenceInsert", ops::runSequenceInsert},
      {"SequenceAt", ops::runSequenceAt},
      {"SequenceErase", ops::runSequenceErase},
      {"SequenceLength", ops::runSequenceLength},
      {"SplitToSequence", ops::runSplitToSequence},
      {"ConcatFromSequence", ops::runConcatFromSequence},
      {"Optional", ops::runOptional},
      {"OptionalHasElement", ops::runOptionalHasElement},
      {"OptionalGetElement", ops::runOptionalGetElement},
      {"If", ops::runIf},
      {"Loop", ops::runLoop},
      {"Scan", ops::runScan},
  };
  // Elementwise ops share one implementation per arity, which reads ctx.op().
  static const auto* kAll = [] {
    auto* all = new RuntimeOpTable(kOps);
    for (const char* op : {"Neg", "Abs", "Sign", "Relu", "Sqrt", "Exp", "Log", "Cos", "Sin", "Tan",
                           "Tanh", "Erf", "Floor", "Ceil", "Round", "Reciprocal", "Sigmoid", "Not"})
      (*all)[op] = ops::runUnary;
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Equal", "Less",
                           "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"})
      (*all)[op] = ops::runBinary;
    return all;
  }();
  return *kAll;
}

// Registered when the library loads: linked into a program, or loaded by the core on first use.
const bool kRegistered = [] {
  registerRuntimeOps(table());
  return true;
}();

}  // namespace
}  // namespace kiln::runtime
