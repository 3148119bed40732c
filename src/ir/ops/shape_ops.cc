// Type inference of the injective ops that move elements between tensors: Concat, Gather,
// GatherElements and Transpose; and of Shape and Size, which read only the input's type.
#include <algorithm>

#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "kiln/opdef/reshape.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

void inferShape(Node& node) {
  inputType(node, 0);
  opdef::DimRange dims = opdef::shapeOpRange(NodeView(node));  // as at run time
  setOutput(node, 0, {DataType::int64(), {dims.end - dims.start}});
}

void inferSize(Node& node) {
  inputType(node, 0);
  setOutput(node, 0, {DataType::int64(), {}});
}

void inferConcat(Node& node) {
  if (!node.attrs.has("axis")) fail(node, "the axis attribute is required");
  const TensorType& first = inputType(node, 0);
  auto axis = static_cast<size_t>(normalizeAxis(node, node.attrs.getInt("axis"), first.rank()));
  opdef::DimList out = first.dims();
  out[axis] = 0;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const TensorType& t = inputType(node, i);
    requireSameDtype(node, 0, i);
    if (t.rank() != first.rank()) {
      fail(node, "input ", i, " is ", t.str(), " but input 0 is ", first.str(),
           "; expected equal ranks");
    }
    for (size_t d = 0; d < out.size(); ++d) {
      if (d == axis || opdef::sameSize(t.dim(d), out[d])) continue;
      if (t.dim(d).isConst() && out[d].isConst()) {
        fail(node, "input ", i, " is ", t.str(), " but input 0 is ", first.str(),
             "; expected equal dims except on axis ", axis);
      }
      // Sizes known only at run time must be equal then: a constant one is the size.
      out[d] = out[d].isConst() ? out[d] : t.dim(d).isConst() ? t.dim(d) : opdef::Dim::unknown();
    }
    try {
      out[axis] = out[axis] + t.dim(axis);
    } catch (const Error&) {
      fail(node, "the concatenated dim overflows int64");
    }
  }
  setOutput(node, 0, TensorType::of(first.dtype, out));
}

void inferGather(Node& node) {
  const TensorType& data = inputType(node, 0, "data");
  const TensorType& indices = inputType(node, 1, "indices");
  requireIndexType(node, 1);
  if (data.rank() < 1) fail(node, "data is ", data.str(), "; expected rank >= 1");
  auto axis = static_cast<size_t>(normalizeAxis(node, node.attrs.getInt("axis", 0), data.rank()));
  int64_t dim = data.shape[axis];  // kDynamicDim when not a constant
  // Every index into an empty axis is out of range; the kernel could only read out of bounds.
  if (dim == 0 && indices.isStatic() && indices.numel() > 0) {
    fail(node, "gathers ", indices.numel(), " indices from axis ", axis,
         " of size 0; expected no indices");
  }
  std::optional<std::vector<int64_t>> idx = constantInts(node.inputs[1]);
  for (int64_t i : dim == runtime::kDynamicDim || !idx ? std::vector<int64_t>{} : *idx) {
    if (i < -dim || i >= dim) {
      fail(node, "index ", i, " is out of range for axis ", axis, " of size ", dim, "; expected ",
           -dim, "..", dim - 1);
    }
  }
  opdef::DimList in = data.dims(), at = indices.dims();
  opdef::DimList out(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(axis));
  out.insert(out.end(), at.begin(), at.end());
  out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(axis) + 1, in.end());
  setOutput(node, 0, TensorType::of(data.dtype, out));
}

// Output element idx reads data at idx with the axis coordinate replaced by indices[idx], so
// indices may not be larger than data along the other axes (ONNX Runtime's rule).
void inferGatherElements(Node& node) {
  const TensorType& data = inputType(node, 0, "data");
  const TensorType& indices = inputType(node, 1, "indices");
  requireIndexType(node, 1);
  requireRankAtLeast(node, 0, 1, "an axis to gather along");
  if (indices.rank() != data.rank()) {
    fail(node, "indices ", indices.str(), " and data ", data.str(),
         " differ in rank; expected equal ranks");
  }
  auto axis = static_cast<size_t>(normalizeAxis(node, node.attrs.getInt("axis", 0), data.rank()));
  for (size_t d = 0; d < data.shape.size(); ++d) {
    if (d != axis && indices.shape[d] > data.shape[d]) {
      fail(node, "indices ", indices.str(), " exceed data ", data.str(), " on dim ", d,
           "; expected indices dims <= data dims except on axis ", axis);
    }
  }
  int64_t dim = data.shape[axis];
  if (std::optional<std::vector<int64_t>> idx = constantInts(node.inputs[1])) {
    for (int64_t i : *idx) {
      if (i < -dim || i >= dim) {
        fail(node, "index ", i, " is out of range for axis ", axis, " of size ", dim, "; expected ",
             -dim, "..", dim - 1);
      }
    }
  }
  setOutput(node, 0, {data.dtype, indices.shape});
}

void inferTranspose(Node& node) {
  const TensorType& x = inputType(node, 0);
  std::vector<int64_t> perm;
  for (int64_t d = x.rank() - 1; d >= 0; --d) perm.push_back(d);
  perm = node.attrs.getInts("perm", perm);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  bool valid = static_cast<int64_t>(perm.size()) == x.rank();
  for (size_t i = 0; valid && i < sorted.size(); ++i) valid = sorted[i] == static_cast<int64_t>(i);
  if (!valid) {
    fail(node, "perm ", listStr(perm), " is not a permutation of 0..", x.rank() - 1, " for input ",
         x.str());
  }
  opdef::DimList out;
  for (int64_t p : perm) out.push_back(x.dim(static_cast<size_t>(p)));
  setOutput(node, 0, TensorType::of(x.dtype, out));
}

}  // namespace

void registerShapeOps(const OpAdder& add) {
  add({.name = "Shape", .opClass = OpClass::kOpaque, .sinceVersion = 1, .inferTypes = inferShape});
  add({.name = "Concat",
       .opClass = OpClass::kInjective,
       .minInputs = 1,
       .maxInputs = kVariadicInputs,
       .sinceVersion = 4,
       .inferTypes = inferConcat,
       .symbolicSizes = true,
       .symbolicKernel = true});
  add({.name = "Gather",
       .opClass = OpClass::kInjective,
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 1,
       .inferTypes = inferGather,
       .symbolicSizes = true,
       .symbolicKernel = true});
  add({.name = "GatherElements",
       .opClass = OpClass::kInjective,
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 11,
       .inferTypes = inferGatherElements});
  add({.name = "Size", .opClass = OpClass::kOpaque, .sinceVersion = 1, .inferTypes = inferSize});
  add({.name = "Transpose",
       .opClass = OpClass::kInjective,
       .sinceVersion = 1,
       .inferTypes = inferTranspose,
       .symbolicSizes = true,
       .symbolicKernel = true});
}

}  // namespace kiln::ir::ops
