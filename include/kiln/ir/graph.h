// The graph IR: SSA values with static tensor types, nodes named by ONNX op type, one owning graph.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <variant>
#include <vector>

#include "kiln/opdef/dim.h"
#include "kiln/runtime/ndarray.h"
#include "kiln/runtime/value_kind.h"

namespace kiln::ir {

using runtime::DataType;
using runtime::NDArray;
using runtime::Shape;
using runtime::ValueKind;

struct TensorType {
  DataType dtype;
  // Every dim >= 0, or runtime::kDynamicDim where the size is known only at run time (printed
  // '?'); the rank is always known.
  Shape shape;
  // A sequence or optional (ONNX's sequence_type, optional_type): DTYPE and SHAPE are its
  // tensors', and UNRANKED says their rank is not known (SHAPE is then empty).
  ValueKind kind = ValueKind::kTensor;
  bool unranked = false;
  // Empty, or one entry per dim: the size of each kDynamicDim as a polynomial in the graph's
  // symbols (Graph::dimBounds), or unknown where the data decides it; known dims repeat SHAPE's.
  // Read and written through dim(), dims() and setDims(), which keep the two in step.
  std::vector<opdef::Dim> symbolicDims = {};

  static TensorType sequenceOf(const TensorType& element);
  static TensorType optionalOf(const TensorType& element);  // a tensor or sequence type
  // What a sequence or optional holds: a sequence's tensors, an optional's tensor or sequence.
  TensorType element() const;

  bool isTensor() const { return kind == ValueKind::kTensor; }
  // A tensor whose every dim is known now, which the memory plan can place (a sequence or
  // optional never is: its size is known only at run time; nor is a string tensor, whose strings
  // are allocated when written).
  bool isStatic() const { return isTensor() && !dtype.isString() && runtime::isStaticShape(shape); }
  // A tensor whose every dim is a constant or a size in the graph's symbols (none unknown): the
  // memory plan can place it at its largest size.
  bool isBounded() const;
  // The shape the memory plan places a tensor at: SHAPE when static, else each dim at its
  // greatest size over BOUNDS; nullopt when a dim is unknown or has a symbol without bounds (the
  // executor then allocates it at run time).
  std::optional<Shape> capacity(const opdef::DimBounds& bounds) const;
  int64_t numel() const { return runtime::shapeNumel(shape); }  // throws for a run-time shape
  // Bytes of the tensor; throws kiln::Error for a run-time shape or a size that overflows.
  int64_t nbytes() const { return runtime::shapeBytes(shape, dtype); }
  int rank() const { return static_cast<int>(shape.size()); }
  opdef::Dim dim(size_t i) const;
  std::vector<opdef::Dim> dims() const;
  // Sets SHAPE (kDynamicDim where a size is not a constant) and the symbolic sizes.
  void setDims(const std::vector<opdef::Dim>& dims);
  bool hasSymbolicDims() const { return !symbolicDims.empty(); }
  // A tensor of DTYPE with DIMS.
  static TensorType of(DataType dtype, const std::vector<opdef::Dim>& dims);
  // "float32[1,3,224,224]", "float32[1,past+seq]", "seq(float32[?,3])", "opt(seq(int64[*]))"
  // ('*': unranked)
  std::string str() const;
  bool operator==(const TensorType& o) const {
    return dtype == o.dtype && shape == o.shape && kind == o.kind && unranked == o.unranked &&
           symbolicDims == o.symbolicDims;
  }
};

// The narrowest type holding values of types A and B: one kind and dtype, with dims that differ
// made kDynamicDim; the tensors of a sequence or optional become unranked when their ranks
// differ. nullopt when there is none (kinds or dtypes differ, or tensors of two ranks).
std::optional<TensorType> joinTypes(const TensorType& a, const TensorType& b);
// Whether a value of type HELD fits a place of type PLACE: one kind and dtype, and HELD's shape
// fits PLACE's (runtime::shapeFits), or PLACE's tensors are unranked.
bool typeFits(const TensorType& place, const TensorType& held);

struct Node;
class Graph;
class OpRegistry;

// An SSA value: a graph input, a constant (weights, folded values) or a node output.
struct Value {
  std::string name;
  TensorType type;
  Node* producer = nullptr;  // null for graph inputs and constants
  int outputIndex = 0;
  std::optional<NDArray> constant;  // set for constants
  // For an integer tensor a shape computation gives (Shape's output and what is computed from
  // it) whose elements are known as sizes in the graph's symbols: those elements, row-major. Set
  // by type inference; the tensor itself is still computed at run time where something reads it.
  std::optional<std::vector<opdef::Dim>> symbolicValue;

  bool isConstant() const { return constant.has_value(); }
};

// A subgraph attribute (If's branches, Loop's and Scan's body): a graph of its own, shared by the
// copies of its node's attributes. Its inputs are the body's formal inputs, then the values of
// enclosing graphs it reads (which its node takes as extra inputs).
using GraphAttr = std::shared_ptr<Graph>;
using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>,
                               std::vector<double>, std::vector<std::string>, NDArray, GraphAttr>;
// "int", "float", "string", "ints", "floats", "strings", "tensor" or "graph", for messages and
// the printer.
const char* attrKindName(const AttrValue& v);

// Node attributes, ordered by name so printing is deterministic.
class Attrs {
 public:
  bool has(const std::string& name) const { return map_.count(name) != 0; }
  void set(const std::string& name, AttrValue v) { map_[name] = std::move(v); }
  void erase(const std::string& name) { map_.erase(name); }
  // Typed getters throw kiln::Error naming the attribute and its actual kind on a type mismatch.
  int64_t getInt(const std::string& name, int64_t dflt) const;
  int64_t getInt(const std::string& name) const;  // required
  double getFloat(const std::string& name, double dflt) const;
  std::string getString(const std::string& name, const std::string& dflt) const;
  std::vector<int64_t> getInts(const std::string& name, std::vector<int64_t> dflt) const;
  std::vector<double> getFloats(const std::string& name, std::vector<double> dflt) const;
  std::vector<std::string> getStrings(const std::string& name, std::vector<std::string> dflt) const;
  const NDArray& getTensor(const std::string& name) const;  // required
  const Graph& getGraph(const std::string& name) const;     // required
  Graph& getGraph(const std::string& name);
  // The names of the graph attributes, in order; empty for a node without subgraphs.
  std::vector<std::string> graphNames() const;
  // getFloat/getFloats also accept int/ints values (an integral float written without a '.').
  const std::map<std::string, AttrValue>& all() const { return map_; }

 private:
  std::map<std::string, AttrValue> map_;
};

struct Node {
  std::string op;              // ONNX op type ("Conv") or a kiln op ("kiln.Copy")
  std::string name;            // from the model, for diagnostics; unique within the graph
  std::vector<Value*> inputs;  // nullptr marks an omitted optional input
  std::vector<Value*> outputs;
  Attrs attrs;
  int group = -1;                // fused group id, set by fuse-ops; -1 before fusion
  const Graph* graph = nullptr;  // the graph that created it, whose ops() define its op
};

// Owns all values and nodes. nodes() is kept in topological order by every mutation.
class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  Value* addInput(const std::string& name, TensorType type);
  Value* addConstant(const std::string& name, NDArray data);
  // Appends a node after all existing nodes (its inputs must already exist) with numOutputs new
  // outputs named outputNames (or generated names). Output types are set by inferTypes().
  // An empty NAME becomes the first output's name.
  Node* addNode(const std::string& op, const std::string& name, std::vector<Value*> inputs,
                const std::vector<std::string>& outputNames, Attrs attrs = {});
  // Inserts a node just before BEFORE; same contract as addNode.
  Node* insertNode(Node* before, const std::string& op, const std::string& name,
                   std::vector<Value*> inputs, const std::vector<std::string>& outputNames,
                   Attrs attrs = {});
  void removeNode(Node* node);  // its outputs must be unused

  // Rewires every use of FROM (node inputs and graph outputs) to TO, except inside the nodes TO is
  // computed from (that would be a cycle): so `y = f(x); replaceAllUses(x, y)` puts f after x.
  // Reorders nodes when TO was produced after some use of FROM.
  void replaceAllUses(Value* from, Value* to);
  // A rewrite's last step: NODE (one output) is computed anew as REPLACEMENT, so NODE's uses go to
  // REPLACEMENT, NODE is removed, REPLACEMENT takes the name of NODE's output and HEIR (when
  // given) NODE's name, so the model's names survive the rewrite.
  void replaceNode(Node* node, Value* replacement, Node* heir = nullptr);
  std::vector<Node*> users(const Value* v) const;
  bool isGraphOutput(const Value* v) const;
  // Removes nodes whose outputs reach no graph output, and unused constants.
  void removeDeadCode();

  const std::vector<Node*>& nodes() const { return order_; }
  std::vector<Value*>& inputs() { return inputs_; }
  const std::vector<Value*>& inputs() const { return inputs_; }
  std::vector<Value*>& outputs() { return outputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  std::vector<Value*> constants() const;            // in creation order
  Value* findValue(const std::string& name) const;  // nullptr when absent

  // A name not yet used by any value or node: PREFIX, PREFIX_1, ... (linear in the graph size).
  std::string uniqueName(const std::string& prefix) const;
  // True when V is a value owned by this graph (and not removed).
  bool owns(const Value* v) const { return owned_.count(v) != 0; }

  // The registry this graph's ops come from (OpRegistry::builtin() unless set): a compile
  // context's, so that ops added by its backends are known to the passes that meet them.
  const OpRegistry& ops() const;
  const std::shared_ptr<const OpRegistry>& opsPtr() const;
  void setOps(std::shared_ptr<const OpRegistry> ops) { ops_ = std::move(ops); }

  std::string name = "main";
  int64_t opsetVersion = 13;
  // The symbols the inputs' sizes are written in, with the sizes each may take (an input's
  // symbolic dim takes its size at run time, within these bounds).
  opdef::DimBounds dimBounds;

 private:
  std::vector<std::unique_ptr<Value>> values_;
  std::vector<std::unique_ptr<Node>> nodeStore_;
  std::vector<Node*> order_;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  std::unordered_set<const Value*> owned_;
  std::shared_ptr<const OpRegistry> ops_;  // null: the builtin registry

  Value* newValue(const std::string& name);
  Node* createNode(size_t position, const std::string& op, const std::string& name,
                   std::vector<Value*> inputs, const std::vector<std::string>& outputNames,
                   Attrs attrs);
  void eraseValues(const std::unordered_set<const Value*>& dead);
  void restoreTopologicalOrder();
};

}  // namespace kiln::ir
