// Type inference of matrix products: MatMul (numpy semantics) and Gemm.
#include "kiln/opdef/matmul.h"

#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

void inferMatMul(Node& node) {
  const TensorType& a = inputType(node, 0, "A");
  inputType(node, 1, "B");
  requireNumeric(node, 0);
  requireSameDtype(node, 0, 1);
  setOutput(node, 0, TensorType::of(a.dtype, matmulShape(node, 0, 1)));
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
  opdef::Dim m = a.dim(transA ? 1 : 0), ka = a.dim(transA ? 0 : 1);
  opdef::Dim kb = b.dim(transB ? 1 : 0), n = b.dim(transB ? 0 : 1);
  if (ka.isConst() && kb.isConst() && ka != kb) {
    fail(node, "inner dimensions differ: A ", a.str(), (transA ? " (transposed)" : ""),
         " has K=", ka.str(), " but B ", b.str(), (transB ? " (transposed)" : ""),
         " has K=", kb.str());
  }
  if (hasInput(node, 2)) {
    const TensorType& c = inputType(node, 2, "C");
    requireSameDtype(node, 0, 2);
    if (!broadcastsTo(c.shape, opdef::knownDims({m, n}))) {
      fail(node, "C is ", c.str(), "; expected a shape unidirectionally broadcastable to [",
           m.str(), ",", n.str(), "]");
    }
  }
  setOutput(node, 0, TensorType::of(a.dtype, {m, n}));
}

}  // namespace

opdef::DimList matmulShape(const Node& node, size_t a, size_t b) {
  return opdef::matmulShape(NodeView(node), a, b);
}

void registerMatmulOps(const OpAdder& add) {
  add({.name = "MatMul",
       .opClass = OpClass::kComplex,
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 1,
       .inferTypes = inferMatMul,
       .symbolicSizes = true,
       .symbolicKernel = true});
  add({.name = "Gemm",
       .opClass = OpClass::kComplex,
       .minInputs = 2,
       .maxInputs = 3,
       .sinceVersion = 7,
       .inferTypes = inferGemm,
       .symbolicSizes = true});
}

}  // namespace kiln::ir::ops
