// Artifacts reach hundreds of megabytes, so the bytes go in as one raw constant (a single copy,
// emitted by the assembler as one block) and are added after optimisation, which never sees them.
#include "embed_artifact.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>

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
    data->setSection(".rodata.kiln_artifact");
  }
  auto* i64 = llvm::Type::getInt64Ty(ctx);
  auto* size = new llvm::GlobalVariable(
      module, i64, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantInt::get(i64, artifact.size()), KILN_SYMBOL_ARTIFACT_SIZE);
  size->setAlignment(llvm::Align(8));
}

}  // namespace kiln::codegen
