// Type inference of matrix products: MatMul (numpy semantics) and Gemm.
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

void inferMatMul(Node& node) {
  const TensorType& a = inputType(node, 0, "A");
  const TensorType& b = inputType(node, 1, "B");
  requireNumeric(node, 0);
  requireSameDtype(node, 0, 1);
  setOutput(node, 0, {a.dtype, matmulShape(node, a, b)});
}

void inferGemm(Node& node) {
  const TensorType& a = inputType(node, 0, "A");
  const TensorType& b = inputType(node, 1, "B");
  requireNumeric(node, 0);
  requireSameDtype(node, 0, 1);
  if (a.rank() != 2 || b.rank() != 2) {
    fail(node, "inputs are ", a.str(), " and ", b.str(), "; expected two matrices (rank 2)");
  }
  bool transA = node.attrs.getInt("transA", 0) != 0;
  bool transB = node.attrs.getInt("transB", 0) != 0;
  node.attrs.getFloat("alpha", 1.0);  // validates the attribute kinds
  node.attrs.getFloat("beta", 1.0);
  int64_t m = transA ? a.shape[1] : a.shape[0];
  int64_t ka = transA ? a.shape[0] : a.shape[1];
  int64_t kb = transB ? b.shape[1] : b.shape[0];
  int64_t n = transB ? b.shape[0] : b.shape[1];
  if (ka != kb) {
    fail(node, "inner dimensions differ: A ", a.str(), (transA ? " (transposed)" : ""),
         " has K=", ka, " but B ", b.str(), (transB ? " (transposed)" : ""), " has K=", kb);
  }
  if (hasInput(node, 2)) {
    const TensorType& c = inputType(node, 2, "C");
    requireSameDtype(node, 0, 2);
    if (!broadcastsTo(c.shape, {m, n})) {
      fail(node, "C is ", c.str(), "; expected a shape unidirectionally broadcastable to [", m, ",",
           n, "]");
    }
  }
  setOutput(node, 0, {a.dtype, {m, n}});
}

}  // namespace

Shape matmulShape(const Node& node, const TensorType& a, const TensorType& b) {
  if (a.rank() == 0 || b.rank() == 0) {
    fail(node, "inputs are ", a.str(), " and ", b.str(), "; expected rank >= 1 (no scalars)");
  }
  Shape sa = a.shape;
  Shape sb = b.shape;
  bool vectorA = sa.size() == 1;
  bool vectorB = sb.size() == 1;
  if (vectorA) sa.insert(sa.begin(), 1);
  if (vectorB) sb.push_back(1);
  int64_t ka = sa.back();
  int64_t kb = sb[sb.size() - 2];
  if (ka != kb) {
    fail(node, "inner dimensions differ: A ", a.str(), " has K=", ka, " but B ", b.str(),
         " has K=", kb);
  }
  Shape out =
      broadcastShapes(node, Shape(sa.begin(), sa.end() - 2), Shape(sb.begin(), sb.end() - 2));
  if (!vectorA) out.push_back(sa[sa.size() - 2]);
  if (!vectorB) out.push_back(sb.back());
  return out;
}

void registerMatmulOps(const OpAdder& add) {
  add({.name = "MatMul",
       .opClass = OpClass::kComplex,
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 1,
       .inferTypes = inferMatMul});
  add({.name = "Gemm",
       .opClass = OpClass::kComplex,
       .minInputs = 2,
       .maxInputs = 3,
       .sinceVersion = 7,
       .inferTypes = inferGemm});
}

}  // namespace kiln::ir::ops
