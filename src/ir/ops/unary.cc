// Type inference of one-input elementwise ops: activations, math functions, predicates (Not,
// IsNaN, IsInf), Clip, Cast/CastLike, Identity and inference-mode Dropout.
#include "infer_util.h"
#include "kiln/ir/dropout.h"
#include "kiln/ir/onnx_dtype.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

using Check = void (*)(const Node&, size_t);

void sameAsInput(Node& node) { setOutput(node, 0, inputType(node, 0)); }

void requireAny(const Node& node, size_t i) { inputType(node, i); }

OpDef unaryOp(const char* name, Check check, int since = 6) {
  return {.name = name,
          .opClass = OpClass::kElementwise,
          .sinceVersion = since,
          .inferTypes = [check](Node& node) {
            check(node, 0);
            sameAsInput(node);
          }};
}

void requireScalarBound(const Node& node, size_t i, const char* what) {
  if (!hasInput(node, i)) return;
  const TensorType& t = inputType(node, i, what);
  requireSameDtype(node, 0, i);
  if (t.numel() != 1 || t.rank() > 1) fail(node, what, " is ", t.str(), "; expected a scalar");
}

void inferClip(Node& node) {
  requireNumeric(node, 0);
  bool attrForm = node.attrs.has("min") || node.attrs.has("max");
  if (attrForm && (hasInput(node, 1) || hasInput(node, 2))) {
    fail(node,
         "min/max are given both as attributes (opset < 11 form) and as inputs; expected "
         "one form");
  }
  node.attrs.getFloat("min", 0.0);
  node.attrs.getFloat("max", 0.0);
  requireScalarBound(node, 1, "min");
  requireScalarBound(node, 2, "max");
  sameAsInput(node);
}

// Strings are parsed from and printed to float32 and float64, integers and bool; the 16-bit
// floats go through float32 in the model.
void requireStringCastable(const Node& node, DataType from, DataType to) {
  if (from.isString() == to.isString()) return;
  DataType other = from.isString() ? to : from;
  if ((other.isFloat() && other.bits == 16) || other.code == kDLBfloat) {
    fail(node, "casts ", from.str(), " to ", to.str(),
         "; kiln casts strings to and from float32, float64, integers and bool only (cast "
         "through float32)");
  }
}

void inferCast(Node& node) {
  const TensorType& x = inputType(node, 0);
  if (!node.attrs.has("to")) fail(node, "the 'to' attribute is required");
  const AttrValue& to = node.attrs.all().at("to");
  DataType t = std::holds_alternative<std::string>(to)
                   ? dataTypeFromOnnxName(std::get<std::string>(to))
                   : dataTypeFromOnnx(node.attrs.getInt("to"));
  requireStringCastable(node, x.dtype, t);
  setOutput(node, 0, TensorType::of(t, x.dims()));
}

// CastLike takes its target type from input 1, whose shape does not matter.
void inferCastLike(Node& node) {
  const TensorType& x = inputType(node, 0, "input");
  DataType t = inputType(node, 1, "target_type").dtype;
  requireStringCastable(node, x.dtype, t);
  setOutput(node, 0, TensorType::of(t, x.dims()));
}

void requireBool(const Node& node, size_t i) {
  DataType t = inputType(node, i).dtype;
  if (!t.isBool()) fail(node, "input ", i, " has type ", t.str(), "; expected bool");
}

// A predicate on floats with int attributes INT_ATTRS: bool output of the input's shape.
OpDef floatPredicate(const char* name, int since, const std::vector<const char*>& intAttrs = {}) {
  return {.name = name,
          .opClass = OpClass::kElementwise,
          .sinceVersion = since,
          .inferTypes = [intAttrs](Node& node) {
            requireFloat(node, 0);
            for (const char* attr : intAttrs) node.attrs.getInt(attr, 0);
            setOutput(node, 0, {DataType::boolean(), inputType(node, 0).shape});
          }};
}

void inferDropout(Node& node) {
  requireFloat(node, 0);
  if (hasInput(node, 1)) requireFloat(node, 1);
  if (hasInput(node, 2) && !inputType(node, 2).dtype.isBool()) {
    fail(node, "training_mode (input 2) is ", inputType(node, 2).dtype.str(), "; expected bool");
  }
  if (dropoutForm(node) == DropoutForm::kRefused) {
    fail(node,
         "training_mode is true with a nonzero ratio (default 0.5): random masks, which kiln does "
         "not compute; it runs Dropout in inference mode, or in training mode with ratio 0 (the "
         "identity). Export the model in eval mode");
  }
  const TensorType& x = inputType(node, 0);
  setOutput(node, 0, x);
  setOutput(node, 1, {DataType::boolean(), x.shape});
}

}  // namespace

void registerUnaryOps(const OpAdder& add) {
  add(unaryOp("Relu", requireFloatOrSignedInt));
  add(unaryOp("Sigmoid", requireFloat));
  add(unaryOp("Tanh", requireFloat));
  add(unaryOp("Exp", requireFloat));
  add(unaryOp("Log", requireFloat));
  add(unaryOp("Sqrt", requireFloat));
  add(unaryOp("Erf", requireNumeric, 9));
  add(unaryOp("Sin", requireFloat, 7));
  add(unaryOp("Cos", requireFloat, 7));
  add(unaryOp("Tan", requireFloat, 7));
  add(unaryOp("Asin", requireFloat, 7));
  add(unaryOp("Acos", requireFloat, 7));
  add(unaryOp("Atan", requireFloat, 7));
  add(unaryOp("Sinh", requireFloat, 9));
  add(unaryOp("Cosh", requireFloat, 9));
  add(unaryOp("Asinh", requireFloat, 9));
  add(unaryOp("Acosh", requireFloat, 9));
  add(unaryOp("Atanh", requireFloat, 9));
  add(unaryOp("Neg", requireFloatOrSignedInt));
  add(unaryOp("Abs", requireNumeric));
  OpDef identity = unaryOp("Identity", requireAny, 1);
  identity.listValues = true;  // from opset 16 sequences and optionals pass through too
  identity.stringValues = true;
  add(identity);
  add(unaryOp("Floor", requireFloat));
  add(unaryOp("Ceil", requireFloat));
  add(unaryOp("Round", requireFloat, 11));
  add(unaryOp("Reciprocal", requireFloat));
  add(unaryOp("Sign", requireNumeric, 9));
  add(unaryOp("Not", requireBool, 1));
  add(floatPredicate("IsNaN", 9));
  add(floatPredicate("IsInf", 10, {"detect_positive", "detect_negative"}));
  add({.name = "LeakyRelu",
       .opClass = OpClass::kElementwise,
       .sinceVersion = 6,
       .inferTypes = [](Node& node) {
         requireFloat(node, 0);
         node.attrs.getFloat("alpha", 0.01);
         sameAsInput(node);
       }});
  add({.name = "Clip",
       .opClass = OpClass::kElementwise,
       .maxInputs = 3,
       .sinceVersion = 6,
       .inferTypes = inferClip});
  add({.name = "Cast",
       .opClass = OpClass::kElementwise,
       .sinceVersion = 1,
       .stringValues = true,
       .inferTypes = inferCast});
  add({.name = "CastLike",
       .opClass = OpClass::kElementwise,
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 15,
       .stringValues = true,
       .inferTypes = inferCastLike});
  add({.name = "Dropout",
       .opClass = OpClass::kElementwise,
       .maxInputs = 3,
       .numOutputs = 2,
       .sinceVersion = 7,
       .runtimeForm = [](const Node& n) { return dropoutForm(n) == DropoutForm::kRunTime; },
       .inferTypes = inferDropout});
}

}  // namespace kiln::ir::ops
