// Type inference of the ops on strings the runtime executes: StringNormalizer. (Cast, CastLike
// and Identity take strings too: unary.cc.)
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

// [C] or [1, C] strings in; the same rank out, its word count known only at run time.
void inferStringNormalizer(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  if (!x.dtype.isString())
    fail(node, "input X is ", x.str(), "; expected string[C] or string[1,C]");
  bool oneRow = x.rank() == 2 && (x.shape[0] == 1 || x.shape[0] == runtime::kDynamicDim);
  if (x.rank() != 1 && !oneRow) {
    fail(node, "input X is ", x.str(), "; expected string[C] or string[1,C]");
  }
  std::string action = node.attrs.getString("case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER") {
    fail(node, "case_change_action is '", action, "'; expected NONE, LOWER or UPPER");
  }
  node.attrs.getInt("is_case_sensitive", 0);
  node.attrs.getString("locale", "");
  node.attrs.getStrings("stopwords", {});
  Shape out = x.rank() == 1 ? Shape{runtime::kDynamicDim} : Shape{1, runtime::kDynamicDim};
  setOutput(node, 0, {DataType::string(), out});
}

}  // namespace

void registerStringOps(const OpAdder& add) {
  add({.name = "StringNormalizer",
       .sinceVersion = 10,
       .stringValues = true,
       .inferRunTime = inferStringNormalizer,
       .runtimeForm = [](const Node&) { return true; },
       .inferTypes = inferStringNormalizer});
}

}  // namespace kiln::ir::ops
