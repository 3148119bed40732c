// Runs the new pass manager's default per-module pipeline with the target's cost model, so the
// vectorizer and unroller see the real vector width and instruction costs.
#include "optimize_module.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>

namespace kiln::codegen {

void optimizeModule(llvm::Module& module, llvm::TargetMachine& tm, int optLevel) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = optLevel >= 2;
  tuning.SLPVectorization = optLevel >= 2;
  tuning.LoopUnrolling = optLevel >= 1;
  llvm::PassBuilder builder(&tm, tuning);

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);

  static const llvm::OptimizationLevel kLevels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1, llvm::OptimizationLevel::O2,
      llvm::OptimizationLevel::O3};
  llvm::ModulePassManager passes = optLevel == 0
                                       ? builder.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                       : builder.buildPerModuleDefaultPipeline(kLevels[optLevel]);
  passes.run(module, mam);
}

}  // namespace kiln::codegen
