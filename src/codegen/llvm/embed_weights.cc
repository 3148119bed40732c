// A program that links a model statically has no runtime to map weights for it, so the weights
// become a read-only constant of the library and the entry function's weight table a constant
// array of pointers into it, resolved by the program's linker.
#include "embed_weights.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "emit_object.h"
#include "kiln/support/error.h"

namespace kiln::codegen {
namespace {

void embedTable(llvm::Module& module, const WeightTable& t) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* byte = llvm::Type::getInt8Ty(ctx);
  llvm::Constant* bytes = llvm::ConstantDataArray::getRaw(t.bytes, t.bytes.size(), byte);
  auto* data = new llvm::GlobalVariable(module, bytes->getType(), /*isConstant=*/true,
                                        llvm::GlobalValue::ExternalLinkage, bytes, t.weightsSymbol);
  data->setAlignment(llvm::Align(64));
  std::vector<llvm::Constant*> pointers;
  pointers.reserve(t.offsets.size());
  for (uint64_t offset : t.offsets) {
    KILN_CHECK(offset % 64 == 0 && offset <= t.bytes.size(), "weight offset ", offset,
               " is not a 64-byte aligned place in ", t.bytes.size(), " bytes");
    pointers.push_back(llvm::ConstantExpr::getInBoundsGetElementPtr(
        bytes->getType(), data,
        llvm::ArrayRef<llvm::Constant*>{
            llvm::ConstantInt::get(llvm::Type::getInt64Ty(ctx), 0),
            llvm::ConstantInt::get(llvm::Type::getInt64Ty(ctx), offset)}));
  }
  auto* ptr = llvm::PointerType::getUnqual(ctx);
  auto* tableType = llvm::ArrayType::get(ptr, pointers.size());
  auto* table = new llvm::GlobalVariable(
      module, tableType, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantArray::get(tableType, pointers), t.tableSymbol);
  table->setAlignment(module.getDataLayout().getPointerABIAlignment(0));
}

}  // namespace

void emitWeightsObject(const std::vector<WeightTable>& tables, llvm::TargetMachine& tm,
                       const std::string& path) {
  emitDataObject(tm, path, "the weights object", [&](llvm::Module& module) {
    for (const WeightTable& t : tables) embedTable(module, t);
  });
}

}  // namespace kiln::codegen
