// Imports one ONNX graph into the graph IR, node by node, folding constants as it goes so that
// shape chains (Shape -> Gather -> Concat -> Reshape) give static shapes immediately. The model's
// main graph and the bodies of its control-flow nodes (If, Loop, Scan) are each imported so.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "external_data.h"
#include "kiln/frontend/onnx/importer.h"
#include "kiln/ir/constant_eval.h"
#include "kiln/ir/graph.h"

namespace kiln::frontend::onnx {

class GraphImporter {
 public:
  GraphImporter(const ::onnx::GraphProto& proto, const ImportOptions& opts, int64_t opset);

  // The model's main graph: its inputs are typed from their declarations and OPTS.inputShapes.
  std::unique_ptr<ir::Graph> importMain();

  // A body whose formal inputs have FORMAL types, and which reads the values CAPTURED of the
  // enclosing graph: constants are copied into the body, the others become its inputs after
  // the formal ones, in order.
  using Captured = std::vector<std::pair<std::string, const ir::Value*>>;  // ONNX name, value
  std::unique_ptr<ir::Graph> importBody(const std::vector<ir::TensorType>& formal,
                                        const Captured& captured);

 private:
  const ::onnx::GraphProto& proto_;
  const ImportOptions& opts_;
  ExternalData external_{opts_.externalDataDir};
  int64_t modelOpset_;  // the model's; the graph's is kLegacyTargetOpset when it is older
  std::unique_ptr<ir::Graph> graph_;
  std::map<std::string, ir::Value*> values_;  // ONNX value name -> its value in graph_
  std::set<std::string> nodeNames_;
  std::set<std::string> graphOutputs_;
  std::set<std::string> onnxNames_;       // every value name in the graph, filled on first need
  std::set<std::string> readNames_;       // every value a node or the graph output reads, likewise
  std::map<std::string, int> nodeCount_;  // per op type, for generated node names
  ir::FoldBudget foldBudget_{0};          // set from the initializers once they are imported

  void importInitializers();
  void importInputs();
  void keepDimBounds();
  void importNodesAndOutputs();
  std::string firstReader(const std::string& value) const;
  std::string nodeName(const ::onnx::NodeProto& node);
  std::string freshValueName(const std::string& base);
  std::string describe(const ::onnx::NodeProto& node, const std::string& name) const;
  ir::Value* lookup(const std::string& value, const ::onnx::NodeProto& node,
                    const std::string& name) const;
  void checkSupported(const ::onnx::NodeProto& node, const std::string& name) const;
  void markLegacySoftmax(const ::onnx::NodeProto& node, ir::Attrs& attrs) const;
  void importNode(const ::onnx::NodeProto& node);
  // NODE in the form of the graph's opset (a model older than opset 7 rewritten into it).
  void importCurrentNode(const ::onnx::NodeProto& node);
  // Adds the node and types it; errors gain the node's ONNX description.
  ir::Node* addTyped(const ::onnx::NodeProto& node, const std::string& name,
                     std::vector<ir::Value*> inputs, const std::vector<std::string>& outputNames,
                     ir::Attrs attrs);
  std::vector<std::string> outputNames(const ::onnx::NodeProto& node, const std::string& name);
  bool readsOutputsPast(const ::onnx::NodeProto& node, int count);
  bool expandIfFunction(const ::onnx::NodeProto& node, const std::string& name);
  void foldIfConstant(ir::Node* n);
  void importConstantNode(const ::onnx::NodeProto& node, const std::string& name);

  // control_flow_import.cc: If, Loop and Scan with their bodies.
  void importControlFlow(const ::onnx::NodeProto& node, const std::string& name);
  std::unique_ptr<ir::Graph> importOneBody(const ::onnx::NodeProto& node, const std::string& name,
                                           const ::onnx::GraphProto& body,
                                           const std::vector<ir::Value*>& inputs,
                                           const Captured& captured, const ir::Attrs& attrs);
};

// The values BODY (and the bodies nested in it) reads without defining them: the enclosing
// graphs' values it uses, in order of first use.
std::vector<std::string> freeVariables(const ::onnx::GraphProto& body);

}  // namespace kiln::frontend::onnx
