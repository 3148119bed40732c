// Artifacts reach hundreds of megabytes, so the bytes go in as one raw constant (a single copy,
// emitted by the assembler as one block) in an object of their own, which the optimiser never sees
// and which is written while the kernels compile.
#include "embed_artifact.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

#include "emit_object.h"
#include "kiln/runtime/backend_api.h"

namespace kiln::codegen {

void embedArtifact(llvm::Module& module, const std::string& artifact) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* byte = llvm::Type::getInt8Ty(ctx);
  llvm::Constant* bytes = llvm::ConstantDataArray::getRaw(artifact, artifact.size(), byte);
  auto* data =
      new llvm::GlobalVariable(module, bytes->getType(), /*isConstant=*/true,
                               llvm::GlobalValue::ExternalLinkage, bytes, KILN_SYMBOL_ARTIFACT);
  data->setAlignment(llvm::Align(64));
  if (llvm::Triple(module.getTargetTriple()).isOSBinFormatELF()) {
    // Its own read-only section keeps the weights apart from code and small constants.
    data->setSection("kiln_artifact");
  }
  auto* i64 = llvm::Type::getInt64Ty(ctx);
  auto* size = new llvm::GlobalVariable(
      module, i64, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantInt::get(i64, artifact.size()), KILN_SYMBOL_ARTIFACT_SIZE);
  size->setAlignment(llvm::Align(8));
}

void emitArtifactObject(const std::string& artifact, llvm::TargetMachine& tm,
                        const std::string& path) {
  emitDataObject(tm, path, "the artifact object",
                 [&](llvm::Module& module) { embedArtifact(module, artifact); });
}

}  // namespace kiln::codegen
