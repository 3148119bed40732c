// The operator registry: every op the compiler knows, with its class and shape inference.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::ir {

// How an op may fuse (TVM's pattern kinds): elementwise and broadcast ops fuse into a producer's
// epilogue or into one loop; injective ops (reshape, concat) only with each other; reductions and
// complex ops (conv, matmul, pooling) anchor a group.
enum class OpClass { kElementwise, kBroadcast, kInjective, kReduction, kComplex, kOpaque };
const char* opClassName(OpClass c);

// maxInputs of variadic ops (Concat).
inline constexpr int kVariadicInputs = std::numeric_limits<int>::max();

struct OpDef {
  std::string name;
  OpClass opClass = OpClass::kOpaque;
  int minInputs = 1;
  int maxInputs = 1;
  int numOutputs = 1;    // at most; ops with optional outputs check the count themselves
  int sinceVersion = 1;  // the oldest ONNX opset whose semantics kiln implements
  // The leading outputs kiln's kernels compute (-1: all); a model that reads a later one is
  // imported as the op's ONNX function, when ONNX defines one, else refused at lowering.
  int computedOutputs = -1;
  // The inputs whose values (not only their types) decide the output shapes: Reshape's shape,
  // Slice's starts/ends/axes/steps. When one of them is not a constant, the shapes are known only
  // at run time.
  std::vector<int> shapeInputs = {};
  // Takes sequences or optionals (ValueKind) as inputs; other ops refuse them. Such an op is
  // executed by the runtime, through inferRunTime.
  bool listValues = false;
  // Takes string tensors as inputs; other ops refuse them. Such a node is executed by the
  // runtime (a string tensor is never static).
  bool stringValues = false;
  // For an op the runtime can execute (kiln/runtime/runtime_op.h): sets the output types of a
  // node whose shapes are known only at run time (an input sized at run time, or a shape input
  // that is not a constant): dtype and rank, with kDynamicDim where a dim is not known now.
  // Null: the op needs static shapes.
  std::function<void(Node& node)> inferRunTime = nullptr;
  // For an op kiln compiles only some forms of: true for a NODE the runtime must execute instead
  // (BatchNormalization in training mode, a pool of rank 5 or with indices). Null: always compiled.
  std::function<bool(const Node& node)> runtimeForm = nullptr;
  // Sets the types of node.outputs from the input types and attributes; throws kiln::Error
  // naming the node, what it received and what it expected.
  std::function<void(Node& node)> inferTypes;
  // Its inferences give sizes in the graph's symbols (TensorType::setDims) where its inputs have
  // them (an elementwise op's always do: its output has its input's shape). Other ops' outputs
  // keep only the sizes known now: a copied input type's symbolic size may not be the output's.
  bool symbolicSizes = false;
  // kiln's kernel for this op takes sizes in the graph's symbols at run time (implied for
  // elementwise ops): a node whose tensors are placed at their bounds (TensorType::capacity)
  // compiles. Other ops' nodes with symbolic sizes run in the runtime.
  bool symbolicKernel = false;
  // Ops that compute each sample (dim 0 of these inputs and of every output) from that sample
  // alone and their other inputs whole: convolutions, pools, normalisations within a sample. A
  // batch sized in the graph's symbols (the rest static) is inferred from one sample, and the
  // kernel loops over the samples around the one-sample kernel (src/kernel/lower_samples.cc).
  std::vector<int> sampleInputs = {};
};

// A set of ops by name. The ops kiln defines form the shared builtin() registry, which never
// changes; a compile context that adds ops (a backend's partition ops) extends a copy, so two
// contexts never see each other's ops. A registry is filled before it is shared, then only read.
class OpRegistry {
 public:
  static const std::shared_ptr<const OpRegistry>& builtin();

  // A registry holding this one's ops, to add more to (the definitions are shared, not copied).
  std::shared_ptr<OpRegistry> extended() const { return std::make_shared<OpRegistry>(*this); }
  // Throws kiln::Error when an op of that name is already registered.
  void add(OpDef def);
  const OpDef* find(const std::string& name) const;  // nullptr when the op is unknown
  std::vector<std::string> names() const;            // sorted

 private:
  std::map<std::string, std::shared_ptr<const OpDef>> ops_;
};

// Lookups in OpRegistry::builtin(), for tools and tests; passes ask the node's graph (opsOf).
const OpDef* findOp(const std::string& name);
std::vector<std::string> registeredOps();

// The registry NODE's ops come from: its graph's, or the builtin one for a node outside a graph.
const OpRegistry& opsOf(const Node& node);

// Runs the op's shape inference on NODE (after checking its input and output counts). Every error
// is a kiln::Error whose message starts with the node's label ("Conv 'conv1': ...").
void inferTypes(Node& node);

// NODE's output types as inference computes them, leaving NODE untouched (for checks, and for
// callers that must not rely on NODE's outputs being typed).
std::vector<TensorType> inferredOutputTypes(const Node& node);

// Whether NODE's shapes are known only at run time: an input or output is sized at run time, or
// a shape input (OpDef::shapeInputs) is not a constant. The runtime executes such nodes. For an
// op with OpDef::symbolicKernel, sizes in the graph's bounded symbols (tensors and shape inputs'
// values) are not: its kernel reads the symbols when it runs.
bool hasRunTimeShapes(const Node& node);

// Whether NODE only computes sizes: its one output is a static integer tensor whose every element
// is a size in the graph's bounded symbols (Shape, and the Gather, Concat, Unsqueeze, ... that
// exporters chain on it). Its kernel writes them from the symbols' values and reads no input.
bool computesSizesOnly(const Node& node);

// Whether the runtime executes NODE: its shapes are known only at run time (and it does not only
// compute sizes), or its op's runtimeForm says kiln compiles no kernel for this form of it.
bool runsInRuntime(const Node& node);

// "Conv 'conv1'": how messages name a node.
std::string nodeLabel(const Node& node);

// Softmax semantics changed in opset 13: before, the input is flattened to 2-D at `axis`
// (default 1) and normalised over the whole tail; from 13 only along `axis` (default -1). Returns
// the normalised axes of NODE (Softmax or LogSoftmax) for a graph of OPSET_VERSION, ascending.
std::vector<int64_t> softmaxAxes(const Node& node, int64_t opsetVersion);

}  // namespace kiln::ir
