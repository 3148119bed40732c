// Checking a compiled model node by node against the reference implementation of each operator
// (`kiln compare`): the debug executor keeps every node's outputs, the reference evaluates the
// imported model from the same inputs, and each compiled output is compared with the model value
// of the same name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/driver/compile.h"
#include "kiln/ir/graph.h"
#include "kiln/runtime/module.h"

namespace kiln::driver {

// A float output agrees when max |kiln - reference| <= atol + rtol * max |reference| (NaN where
// the reference has NaN, and only there); integer and boolean outputs must be equal.
struct CompareOptions {
  double rtol = 1e-4;
  double atol = 1e-6;
};

struct ValueComparison {
  size_t kernel = 0;                // the compiled node's position in run order
  std::string node;                 // its name
  std::string ops;                  // the operators fused into it, "Conv+Relu"
  std::string value;                // the model value compared
  std::string type;                 // its type, "float32[1,64,56,56]"
  bool unblocked = false;           // kiln held it in the channel-blocked layout NC[S..]c
  double maxError = 0;              // max |kiln - reference| (infinity for a NaN on one side only)
  double scale = 0;                 // max |reference| over finite values
  double tolerance = 0;             // atol + rtol * scale; 0 for integers and booleans
  std::vector<int64_t> worstIndex;  // where maxError is
  double kilnValue = 0, referenceValue = 0;

  bool agrees() const { return maxError <= tolerance; }
};

struct CompareReport {
  size_t kernels = 0;                   // compiled nodes run
  std::vector<ValueComparison> values;  // every compared output, in run order
  // Compiled outputs without a model value of that name (temporaries the compiler created).
  std::vector<std::string> unmatched;

  // The first compared output beyond tolerance, or nullptr when all agree.
  const ValueComparison* firstDivergence() const;
};

// Imports ONNX_PATH as the compiler does (OPTIONS.inputShapes), without optimising it: the graph
// the reference evaluates.
std::unique_ptr<ir::Graph> importModel(const std::string& onnxPath, const CompileOptions& options);

// Runs EXECUTOR (a debug executor, lib["debug_create"](model, dev)) on INPUTS (one per input of
// MODEL, the imported and unoptimised graph, in order) keeping every node's outputs, evaluates
// MODEL with the reference from the same inputs and compares them. Throws kiln::Error when an
// input does not fit or an op has no reference.
CompareReport compareWithReference(const ir::Graph& model,
                                   const std::vector<runtime::NDArray>& inputs,
                                   const runtime::Module& executor, const CompareOptions& options);

}  // namespace kiln::driver
