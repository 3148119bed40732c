// The phase names the command line, the Python package and the dumps share.
#include "kiln/driver/compile_phase.h"

#include "kiln/support/error.h"

namespace kiln::driver {

const std::vector<CompilePhase>& compilePhases() {
  static const std::vector<CompilePhase> kAll = {CompilePhase::kImport,
                                                 CompilePhase::kGraphPasses,
                                                 CompilePhase::kPartition,
                                                 CompilePhase::kFuse,
                                                 CompilePhase::kLower,
                                                 CompilePhase::kPlan,
                                                 CompilePhase::kExecutorCodegen,
                                                 CompilePhase::kCodegen,
                                                 CompilePhase::kLink};
  return kAll;
}

const char* phaseName(CompilePhase phase) {
  switch (phase) {
    case CompilePhase::kImport:
      return "import";
    case CompilePhase::kGraphPasses:
      return "graph-passes";
    case CompilePhase::kPartition:
      return "partition";
    case CompilePhase::kFuse:
      return "fuse";
    case CompilePhase::kLower:
      return "lower";
    case CompilePhase::kPlan:
      return "plan";
    case CompilePhase::kExecutorCodegen:
      return "executor-codegen";
    case CompilePhase::kCodegen:
      return "codegen";
    case CompilePhase::kLink:
      return "link";
  }
  KILN_CHECK(false, "unknown compile phase ", static_cast<int>(phase));
  return "";
}

std::string phaseNames() {
  std::string names;
  for (CompilePhase p : compilePhases()) names += strCat(names.empty() ? "" : ", ", phaseName(p));
  return names;
}

CompilePhase parseCompilePhase(const std::string& name) {
  for (CompilePhase p : compilePhases()) {
    if (name == phaseName(p)) return p;
  }
  throw Error(strCat("compile phase '", name, "' is not known; the phases are ", phaseNames()));
}

}  // namespace kiln::driver
