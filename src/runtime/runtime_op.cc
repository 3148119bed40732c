// The table of ops the runtime executes itself, by ONNX op type.
#include "kiln/runtime/runtime_op.h"

#include <map>

#include "kiln/support/error.h"
#include "ops/runtime_ops.h"

namespace kiln::runtime {
namespace {

const std::map<std::string, RuntimeOpFn>& table() {
  static const std::map<std::string, RuntimeOpFn> kOps = {
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
    auto* all = new std::map<std::string, RuntimeOpFn>(kOps);
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

}  // namespace

bool RuntimeOpContext::hasOutput(size_t) const { return true; }

Subgraph& RuntimeOpContext::body(const std::string& attr) {
  throw Error(strCat(label(), ": has no compiled body '", attr,
                     "' (control flow runs only in a graph executor)"));
}

ValueKind RuntimeOpContext::inputKind(size_t /*i*/) const { return ValueKind::kTensor; }

ValueKind RuntimeOpContext::outputKind(size_t /*i*/) const { return ValueKind::kTensor; }

const TensorList& RuntimeOpContext::listInput(size_t i) const {
  throw Error(strCat(label(), ": input ", i, " is a tensor, not a sequence or optional"));
}

// By value in the interface: an implementation moves the list in.
void RuntimeOpContext::setListOutput(
    size_t i, TensorList /*value*/) {  // NOLINT(performance-unnecessary-value-param)
  throw Error(strCat(label(), ": output ", i, " is a tensor, not a sequence or optional"));
}

RuntimeOpFn findRuntimeOp(const std::string& name) {
  auto it = table().find(name);
  return it == table().end() ? nullptr : it->second;
}

std::vector<std::string> runtimeOpNames() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : table()) names.push_back(name);
  return names;
}

}  // namespace kiln::runtime
