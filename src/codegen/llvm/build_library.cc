// The whole back end in order: lower kernels, optimise, embed the artifact, emit machine code,
// link. Each step lives in its own file; this one only sequences them.
#include "kiln/codegen/llvm/build_library.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen_module.h"
#include "embed_artifact.h"
#include "emit_object.h"
#include "kiln/support/error.h"
#include "link_shared_library.h"
#include "llvm_diagnostics.h"
#include "optimize_module.h"
#include "target_machine.h"
#include "temp_dir.h"

namespace kiln::codegen {
namespace {

void dumpModule(const llvm::Module& module, const std::string& path) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_Text);
  if (ec) throw Error(strCat("cannot write LLVM IR dump '", path, "': ", ec.message()));
  module.print(out, nullptr);
}

}  // namespace

void buildSharedLibrary(const std::vector<kernel::PrimFunc>& funcs, const std::string& artifact,
                        const BuildOptions& options, const std::string& outputPath) {
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(options.target, options.optLevel);
  LlvmDiagnostics diagnostics;  // outlives the context that reports to it
  llvm::LLVMContext ctx;
  diagnostics.attach(ctx);
  std::unique_ptr<llvm::Module> module =
      generateModule(ctx, funcs, *tm, options.target.vectorLanes());
  optimizeModule(*module, *tm, options.optLevel);
  // The dump shows the kernels; the artifact bytes would only drown them.
  if (!options.dumpLlvmPath.empty()) dumpModule(*module, options.dumpLlvmPath);
  embedArtifact(*module, artifact);

  TempDir scratch;
  std::string object = scratch.file("kernels.o");
  emitObjectFile(*module, *tm, object);
  diagnostics.throwIfErrors(strCat("generating code for ", options.target.str()));
  module.reset();  // frees the artifact copy before the linker runs
  linkSharedLibrary(object, options.target.triple, outputPath, scratch.file("link.log"));
}

}  // namespace kiln::codegen
