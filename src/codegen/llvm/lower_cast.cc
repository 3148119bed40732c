// Conversions between element types follow C semantics (truncation toward zero for float to int,
// non-zero is true for bool), lane by lane.
#include <llvm/IR/Constants.h>

#include "function_lowering.h"
#include "kiln/support/error.h"
#include "type_map.h"

namespace kiln::codegen {
namespace {

bool isFloating(DataType t) { return t.isFloat() || t.code == kDLBfloat; }

}  // namespace

llvm::Value* FunctionLowering::castValue(llvm::Value* v, DataType from, DataType to) {
  if (from == to) return v;
  KILN_CHECK(from.lanes == to.lanes, "cannot cast ", from.str(), " to ", to.str());
  llvm::Type* type = valueType(ctx_, to);
  llvm::Value* zero = llvm::Constant::getNullValue(v->getType());
  if (to.isBool()) {
    return isFloating(from) ? b_.CreateFCmpUNE(v, zero) : b_.CreateICmpNE(v, zero);
  }
  if (from.isBool()) {
    return isFloating(to) ? b_.CreateUIToFP(v, type) : b_.CreateZExt(v, type);
  }
  if (isFloating(from) && isFloating(to)) {
    if (from.bits == to.bits) {  // half <-> bfloat: through float, which holds both exactly
      DataType wide = DataType::float32();
      wide.lanes = from.lanes;
      return b_.CreateFPTrunc(b_.CreateFPExt(v, valueType(ctx_, wide)), type);
    }
    return from.bits < to.bits ? b_.CreateFPExt(v, type) : b_.CreateFPTrunc(v, type);
  }
  if (isFloating(to)) return from.isInt() ? b_.CreateSIToFP(v, type) : b_.CreateUIToFP(v, type);
  if (isFloating(from)) return to.isInt() ? b_.CreateFPToSI(v, type) : b_.CreateFPToUI(v, type);
  if (from.bits == to.bits) return v;  // int <-> uint of one width: same bits
  if (from.bits > to.bits) return b_.CreateTrunc(v, type);
  return from.isInt() ? b_.CreateSExt(v, type) : b_.CreateZExt(v, type);
}

}  // namespace kiln::codegen
