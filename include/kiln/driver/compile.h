// The compiler's entry points: ONNX file or graph in, one shared-library artifact out.
#pragma once

#include <map>
#include <string>

#include "kiln/ir/graph.h"

namespace kiln::driver {

struct CompileOptions {
  std::string target;  // "" = the host CPU; else "llvm -mcpu=... -mattr=..."
  std::string executor = "graph";
  std::map<std::string, runtime::Shape> inputShapes;  // for symbolic or overridden input dims
  std::string modelName = "default";
  int optLevel = 3;       // 0: no graph optimisation, LLVM -O0; 3: everything
  std::string dumpIrDir;  // when set, the IR after every pass is written here
  // A schedule file (JSON lines of {"workload", "knobs"}) overriding the analytical defaults of
  // the kernels whose workloads it names; --dump-ir writes the chosen ones as schedules.json.
  std::string schedulePath;
};

// Imports, optimises, lowers, generates code and writes the artifact (atomically).
// Throws kiln::Error for user-caused problems.
void compileOnnxFile(const std::string& onnxPath, const std::string& outputPath,
                     const CompileOptions& options);
void compileGraph(ir::Graph& graph, const std::string& outputPath, const CompileOptions& options);

}  // namespace kiln::driver
