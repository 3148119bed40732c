// pack-matmul: MatMul and Gemm whose right-hand side is a constant matrix become
// kiln.MatMulPacked with that matrix packed once, here, into column panels of the target's vector
// width (the order the gemm micro-kernel reads), so the kernel streams B contiguously and every
// leading dimension of A becomes GEMM rows. Gemm's alpha is folded into the packed matrix and
// its C becomes an Add that fuses into the kernel's epilogue.
// A's leading dims (the GEMM rows) may be sizes in bounded symbols (a sequence length); its K
// must be static.
#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"
#include "kiln/transform/passes.h"
#include "pack_weights.h"

namespace kiln::transform {
namespace {

using ir::Node;
using ir::Value;
using runtime::DataType;
using runtime::NDArray;

bool isFloat32Constant(const Value* v) {
  return v != nullptr && v->isConstant() && v->type.dtype == DataType::float32();
}

// The packed kernel takes A's rows static or sized in bounded symbols, and its K static.
bool packsRowsOf(const Value* a) {
  if (a->type.rank() < 1 || a->type.shape.back() < 0) return false;
  return a->type.isStatic() || a->type.isBounded();
}

NDArray scaled(const NDArray& a, double s) {
  NDArray out = a.clone();
  if (s == 1.0) return out;
  for (int64_t i = 0; i < out.numel(); ++i) out.data<float>()[i] *= static_cast<float>(s);
  return out;
}

class Packer {
 public:
  Packer(ir::Graph& graph, int64_t block) : g_(graph), b_(block) {}

  void run() {
    std::vector<Node*> nodes = g_.nodes();
    for (Node* n : nodes) {
      if (n->op == "MatMul") {
        packMatMul(n);
      } else if (n->op == "Gemm") {
        packGemm(n);
      }
    }
    g_.removeDeadCode();
  }

 private:
  void packMatMul(Node* n) {
    Value *a = n->inputs[0], *b = n->inputs[1];
    if (!isFloat32Constant(b) || b->type.rank() != 2 || !packsRowsOf(a)) return;
    if (a->type.dtype != DataType::float32()) return;
    replace(n, a, packMatmulB(*b->constant, false, b_), b->name, b->type.shape[1], nullptr);
  }

  void packGemm(Node* n) {
    Value *a = n->inputs[0], *b = n->inputs[1];
    Value* c = n->inputs.size() > 2 ? n->inputs[2] : nullptr;
    if (!isFloat32Constant(b) || a->type.dtype != DataType::float32() || !packsRowsOf(a)) return;
    if (n->attrs.getInt("transA", 0) != 0) return;
    bool transB = n->attrs.getInt("transB", 0) != 0;
    double alpha = n->attrs.getFloat("alpha", 1.0), beta = n->attrs.getFloat("beta", 1.0);
    Value* bias = nullptr;
    if (c != nullptr && beta != 0) {
      if (c->isConstant() && c->type.dtype == DataType::float32()) {
        bias = beta == 1.0
                   ? c
                   : g_.addConstant(g_.uniqueName(c->name + "_scaled"), scaled(*c->constant, beta));
      } else if (beta == 1.0) {
        bias = c;
      } else {
        return;
      }
    }
    int64_t cols = transB ? b->type.shape[0] : b->type.shape[1];
    replace(n, a, packMatmulB(scaled(*b->constant, alpha), transB, b_), b->name, cols, bias);
  }

  // N's output becomes kiln.MatMulPacked(A, packed) [+ BIAS], keeping N's names.
  void replace(Node* n, Value* a, NDArray packed, const std::string& bName, int64_t cols,
               Value* bias) {
    Value* bp = g_.addConstant(g_.uniqueName(bName + "_packed"), std::move(packed));
    ir::Attrs attrs;
    attrs.set("n", cols);
    attrs.set("block", b_);
    Value* out = n->outputs[0];
    std::string name = n->name, outName = out->name;
    Node* mm = g_.insertNode(n, "kiln.MatMulPacked", g_.uniqueName(name + "_packed"), {a, bp},
                             {g_.uniqueName(outName + "_mm")}, attrs);
    ir::inferTypes(*mm);
    Node* last = mm;
    if (bias != nullptr) {
      last = g_.insertNode(n, "Add", g_.uniqueName(name + "_bias"), {mm->outputs[0], bias},
                           {g_.uniqueName(outName + "_biased")});
      ir::inferTypes(*last);
    }
    KILN_CHECK(last->outputs[0]->type == out->type, "pack-matmul changed ", outName, " from ",
               out->type.str(), " to ", last->outputs[0]->type.str());
    g_.replaceNode(n, last->outputs[0], last);
  }

  ir::Graph& g_;
  int64_t b_;
};

}  // namespace

void packMatmul(ir::Graph& graph, int64_t block) {
  if (block <= 1) return;
  Packer(graph, block).run();
}

}  // namespace kiln::transform
