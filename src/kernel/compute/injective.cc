// Injective ops (data movement: Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Slice, Gather,
// Expand, Tile, Trilu, Pad, Split, Concat, DepthToSpace, ...) and shape-producing ops, each defined
// by which input element an output element reads.
#include <algorithm>

#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/ir/node_view.h"
#include "kiln/opdef/slice.h"
#include "kiln/runtime/backend_api.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

const Dims& shapeOf(const ir::Value* v) { return v->type.shape; }
const Dims& outShape(const ir::Node& n, size_t i = 0) { return n.outputs[i]->type.shape; }

OpLowering computeOp(const std::function<Expr(LowerContext&, const ir::Node&, const Index&)>& f) {
  OpLowering l;
  l.compute = [f](LowerContext& ctx, const ir::Node& node) {
    Accessor a = [&ctx, &node, f](const Index& idx) { return f(ctx, node, idx); };
    return std::vector<Accessor>{a};
  };
  return l;
}

Expr input(LowerContext& ctx, const ir::Node& n, size_t i, const Index& idx) {
  return ctx.accessor(n.inputs[i])(idx);
}

// Element 0 of a scalar (or one-element) input.
Expr scalarInput(LowerContext& ctx, const ir::Node& n, size_t i) {
  return input(ctx, n, i, Index(shapeOf(n.inputs[i]).size(), intImm(0)));
}

Expr reshapeRead(LowerContext& ctx, const ir::Node& n, const Index& idx) {
  const Dims& in = shapeOf(n.inputs[0]);
  return input(ctx, n, 0, unflatten(flatten(idx, outShape(n)), in));
}

Expr transposeRead(LowerContext& ctx, const ir::Node& n, const Index& idx) {
  size_t rank = idx.size();
  Dims perm = n.attrs.getInts("perm", {});
  if (perm.empty()) {
    for (size_t d = rank; d-- > 0;) perm.push_back(static_cast<int64_t>(d));
  }
  if (perm.size() != rank)
    unsupported(n, strCat("perm has ", perm.size(), " entries for rank ", rank));
  Index in(rank);
  for (size_t d = 0; d < rank; ++d) {
    auto p = static_cast<size_t>(normalizeAxis(n, perm[d], static_cast<int64_t>(rank)));
    in[p] = idx[d];
  }
  return input(ctx, n, 0, in);
}

// Slice's start per axis, clamped as ONNX specifies (the output shape fixes the count); with
// sizes in symbols, a start may be one (a cache length), read when the kernel runs.
Expr sliceRead(LowerContext& ctx, const ir::Node& n, const Index& idx) {
  if (ctx.symbolic()) {
    opdef::SliceDims r = opdef::sliceDimRanges(ir::NodeView(n));
    Index src = idx;
    for (size_t a = 0; a < r.starts.size(); ++a) {
      if (r.starts[a].isUnknown()) {
        unsupported(n, strCat("the start of its axis ", a, " is known only at run time"));
      }
      if (r.starts[a] == opdef::Dim(0) && r.steps[a] == 1) continue;
      src[a] = ctx.sizeExpr(r.starts[a]) + idx[a] * intImm(r.steps[a]);
    }
    return input(ctx, n, 0, src);
  }
  std::vector<opdef::SliceRange> ranges = opdef::sliceRanges(ir::NodeView(n));
  Index src = idx;
  for (size_t a = 0; a < ranges.size(); ++a) {
    if (ranges[a].start != 0 || ranges[a].step != 1) {
      src[a] = intImm(ranges[a].start) + idx[a] * intImm(ranges[a].step);
    }
  }
  return input(ctx, n, 0, src);
}

// An index into an axis of DIM elements: negative ones count from the end; one outside
// [-DIM, DIM) stops the kernel with KILN_STATUS_INDEX_OUT_OF_RANGE, as ONNX makes it an error.
// The clamp keeps even an unchecked read inside the tensor.
Expr checkedIndex(LowerContext& ctx, const Expr& i, int64_t dim) {
  ctx.requireData(
      compare(CompareOp::kGE, i, intImm(-dim)) && compare(CompareOp::kLT, i, intImm(dim)),
      KILN_STATUS_INDEX_OUT_OF_RANGE);
  return clampTo(select(compare(CompareOp::kLT, i, intImm(0)), i + intImm(dim), i), 0, dim - 1);
}

Expr gatherRead(LowerContext& ctx, const ir::Node& n, const Index& idx) {
  const Dims& data = shapeOf(n.inputs[0]);
  const Dims& ind = shapeOf(n.inputs[1]);
  auto rank = static_cast<int64_t>(data.size());
  auto axis = static_cast<size_t>(normalizeAxis(n, n.attrs.getInt("axis", 0), rank));
  Index indIdx(idx.begin() + static_cast<std::ptrdiff_t>(axis),
               idx.begin() + static_cast<std::ptrdiff_t>(axis + ind.size()));
  if (data[axis] < 0) {
    unsupported(n, strCat("it gathers along a dim sized in symbols (", n.inputs[0]->type.str(),
                          ", axis ", axis, ")"));
  }
  Expr i = cast(DataType::int64(), input(ctx, n, 1, indIdx));
  i = checkedIndex(ctx, i, data[axis]);
  Index src(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(axis));
  src.push_back(i);
  src.insert(src.end(), idx.begin() + static_cast<std::ptrdiff_t>(axis + ind.size()), idx.end());
  return input(ctx, n, 0, src);
}

Expr gatherElementsRead(LowerContext& ctx, const ir::Node& n, const Index& idx) {
  const Dims& data = shapeOf(n.inputs[0]);
  auto rank = static_cast<int64_t>(data.size());
  auto axis = static_cast<size_t>(normalizeAxis(n, n.attrs.getInt("axis", 0), rank));
  Expr i = checkedIndex(ctx, cast(DataType::int64(), input(ctx, n, 1, idx)), data[axis]);
  Index src = idx;
  src[axis] = i;
  return input(ctx, n, 0, src);
}

// Trilu keeps element (.., i, j) when j - i >= k (upper) or j - i <= k (lower); k may be read at
// run time.
Expr triluRead(LowerContext& ctx, const ir::Node& n, const Index& idx) {
  size_t rank = idx.size();
  Expr k = n.inputs.size() > 1 && n.inputs[1] != nullptr ? scalarInput(ctx, n, 1) : intImm(0);
  Expr diagonal = idx[rank - 1] - idx[rank - 2];
  bool upper = n.attrs.getInt("upper", 1) != 0;
  Expr keep = compare(upper ? CompareOp::kGE : CompareOp::kLE, diagonal, k);
  DataType t = n.outputs[0]->type.dtype;
  return select(keep, input(ctx, n, 0, idx), constant(0, t));
}

Expr tileRead(LowerContext& ctx, const ir::Node& n, const Index& idx) {
  const Dims& in = shapeOf(n.inputs[0]);
  Index src(idx.size());
  for (size_t d = 0; d < idx.size(); ++d) {
    src[d] = in[d] == outShape(n)[d] ? idx[d] : binary(BinaryOp::kFloorMod, idx[d], intImm(in[d]));
  }
  return input(ctx, n, 0, src);
}

Expr padRead(LowerContext& ctx, const ir::Node& n, const Index& idx) {
  const Dims& in = shapeOf(n.inputs[0]);
  auto rank = static_cast<int64_t>(in.size());
  Dims pads = hasInput(n, 1) ? constantInts(n, 1, "pads") : n.attrs.getInts("pads", {});
  Dims axes;
  if (hasInput(n, 3)) axes = constantInts(n, 3, "axes");
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  if (pads.size() != 2 * axes.size()) unsupported(n, "pads does not have 2 entries per axis");
  Dims begin(in.size(), 0);
  for (size_t k = 0; k < axes.size(); ++k)
    begin[static_cast<size_t>(normalizeAxis(n, axes[k], rank))] = pads[k];
  std::string mode = n.attrs.getString("mode", "constant");
  DataType t = n.outputs[0]->type.dtype;
  Expr inside = intImm(1, DataType::boolean());
  Index src(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    Expr p = idx[d] - intImm(begin[d]);
    int64_t dim = in[d];
    if (mode == "constant") {
      inside = inside && compare(CompareOp::kGE, p, intImm(0)) &&
               compare(CompareOp::kLT, p, intImm(dim));
      src[d] = clampTo(p, 0, dim - 1);
    } else if (mode == "edge") {
      src[d] = clampTo(p, 0, dim - 1);
    } else if (mode == "reflect") {
      if (dim == 1) {
        src[d] = intImm(0);
        continue;
      }
      // Reflect about the edges without repeating them: period 2 * (dim - 1).
      Expr m = binary(BinaryOp::kFloorMod, p, intImm(2 * (dim - 1)));
      src[d] = select(compare(CompareOp::kLT, m, intImm(dim)), m, intImm(2 * (dim - 1)) - m);
    } else if (mode == "wrap") {
      src[d] = binary(BinaryOp::kFloorMod, p, intImm(dim));
    } else {
      unsupported(n, strCat("mode '", mode, "'; expected constant, edge, reflect or wrap"));
    }
  }
  Expr v = input(ctx, n, 0, src);
  if (mode != "constant") return v;
  Expr fill = hasInput(n, 2) && n.inputs[2]->type.numel() > 0
                  ? scalarInput(ctx, n, 2)
                  : constant(n.attrs.getFloat("value", 0.0), t);
  return select(inside, v, fill);
}

Expr depthToSpaceRead(LowerContext& ctx, const ir::Node& n, const Index& idx) {
  const Dims& in = shapeOf(n.inputs[0]);
  if (in.size() != 4) unsupported(n, "input must be 4-D (NCHW)");
  int64_t b = n.attrs.getInt("blocksize");
  bool crd = n.attrs.getString("mode", "DCR") == "CRD";
  int64_t oc = outShape(n)[1];
  Expr bh = binary(BinaryOp::kFloorMod, idx[2], intImm(b));
  Expr bw = binary(BinaryOp::kFloorMod, idx[3], intImm(b));
  Expr c = crd ? (idx[1] * intImm(b) + bh) * intImm(b) + bw
               : (bh * intImm(b) + bw) * intImm(oc) + idx[1];
  return input(ctx, n, 0, {idx[0], c, floorDivBy(idx[2], b), floorDivBy(idx[3], b)});
}

Expr spaceToDepthRead(LowerContext& ctx, const ir::Node& n, const Index& idx) {
  const Dims& in = shapeOf(n.inputs[0]);
  if (in.size() != 4) unsupported(n, "input must be 4-D (NCHW)");
  int64_t b = n.attrs.getInt("blocksize");
  int64_t ic = in[1];
  Expr c = binary(BinaryOp::kFloorMod, idx[1], intImm(ic));
  Expr block = floorDivBy(idx[1], ic);
  Expr bh = floorDivBy(block, b), bw = binary(BinaryOp::kFloorMod, block, intImm(b));
  return input(ctx, n, 0, {idx[0], c, idx[2] * intImm(b) + bh, idx[3] * intImm(b) + bw});
}

Expr shapeValue(LowerContext&, const ir::Node& n, const Index& idx) {
  const Dims& in = shapeOf(n.inputs[0]);
  auto rank = static_cast<int64_t>(in.size());
  int64_t start = n.attrs.getInt("start", 0), end = n.attrs.getInt("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  Expr v = intImm(0);
  for (int64_t d = end; d-- > start;) {
    v = select(compare(CompareOp::kEQ, idx[0], intImm(d - start)),
               intImm(in[static_cast<size_t>(d)]), v);
  }
  return v;
}

Expr constantOfShapeValue(LowerContext&, const ir::Node& n, const Index&) {
  DataType t = n.outputs[0]->type.dtype;
  if (!n.attrs.has("value")) return constant(0, t);
  const runtime::NDArray& v = n.attrs.getTensor("value");
  if (v.numel() != 1 || v.dtype() != t)
    unsupported(n, "value must be one element of the output dtype");
  if (t == DataType::float32()) return floatImm(*v.data<float>(), t);
  if (t == DataType::float64()) return floatImm(*v.data<double>(), t);
  if (t == DataType::int64()) return intImm(*v.data<int64_t>(), t);
  if (t == DataType::int32()) return intImm(*v.data<int32_t>(), t);
  if (t == DataType::boolean() || t == DataType::uint8()) return intImm(*v.data<uint8_t>(), t);
  unsupported(n, strCat("value of dtype ", t.str()));
}

// Concat writes each input into its slab of the output, branch-free.
Stmt emitConcat(LowerContext& ctx, const ir::Node& n, const StoreFn& storeFn) {
  // Its inputs were written in place, inside the output (concat-in-place, planMemory).
  if (n.attrs.getInt("kiln.in_place", 0) != 0) return seq({});
  const Dims& out = outShape(n);
  auto axis = static_cast<size_t>(
      normalizeAxis(n, n.attrs.getInt("axis"), static_cast<int64_t>(out.size())));
  std::vector<Stmt> parts;
  Expr offset = intImm(0);  // a sum of sizes in symbols when the inputs have them
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const ir::Value* v = n.inputs[i];
    Accessor a = ctx.accessor(v);
    auto slab = [&](const Index& idx) {
      Index o = idx;
      o[axis] = ctx.symbolic() && isIntImm(offset, 0) ? idx[axis] : idx[axis] + offset;
      return storeFn(o, a(idx));
    };
    if (ctx.symbolic()) {
      Index extents = ctx.extentsOf(v);
      parts.push_back(elementwiseNest(ctx, extents, ctx.capacityNumel(v), slab));
      offset = isIntImm(offset, 0) ? extents[axis] : offset + extents[axis];
    } else {
      parts.push_back(elementwiseNest(ctx, shapeOf(v), slab));
      offset = intImm(offset->intValue + shapeOf(v)[axis]);
    }
  }
  return seq(parts);
}

// Each output reads its slab of the input, at an offset that is a sum of sizes in symbols when
// the outputs have them.
std::vector<Accessor> splitOutputs(LowerContext& ctx, const ir::Node& n) {
  auto rank = static_cast<int64_t>(shapeOf(n.inputs[0]).size());
  auto axis = static_cast<size_t>(normalizeAxis(n, n.attrs.getInt("axis", 0), rank));
  std::vector<Accessor> outs;
  Expr offset = intImm(0);
  for (const ir::Value* v : n.outputs) {
    outs.push_back([&ctx, &n, axis, offset](const Index& idx) {
      Index src = idx;
      src[axis] = idx[axis] + offset;
      return input(ctx, n, 0, src);
    });
    Expr size = ctx.symbolic() ? ctx.extentsOf(v)[axis] : intImm(shapeOf(v)[axis]);
    offset = isIntImm(offset) && isIntImm(size) ? intImm(offset->intValue + size->intValue)
                                                : offset + size;
  }
  return outs;
}

// Expand: the input broadcast numpy-style; with sizes in symbols, a dim broadcasts only when it
// is 1, and any other must equal the output's.
Expr expandRead(LowerContext& ctx, const ir::Node& n, const Index& idx) {
  const ir::Value* in = n.inputs[0];
  if (!ctx.symbolic()) return input(ctx, n, 0, broadcastIndex(idx, ctx.shapeOf(in)));
  opdef::DimList from = in->type.dims(), to = n.outputs[0]->type.dims();
  size_t lead = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d) {
    bool one = from[d].isConst() && from[d].value() == 1;
    if (!one && from[d] != to[lead + d]) {
      unsupported(n, strCat("dim ", d, " of its input (", in->type.str(),
                            ") may or may not broadcast to ", n.outputs[0]->type.str()));
    }
  }
  return input(ctx, n, 0, broadcastIndex(idx, ctx.extentsOf(in)));
}

// Range: delta accumulated from start in the element type, one element after another (as ONNX
// defines it, and src/opdef's rule computes it), its inputs read when the kernel runs.
Stmt emitRange(LowerContext& ctx, const ir::Node& n, const StoreFn& storeFn) {
  Expr start = scalarInput(ctx, n, 0), delta = scalarInput(ctx, n, 2);
  Expr count = ctx.symbolic() ? ctx.extentsOf(n.outputs[0])[0] : intImm(outShape(n)[0]);
  return withScalar(ctx, "value", start, [&](const Buffer& value) {
    return loopRange(ctx, "i", intImm(0), count, ForKind::kSerial, [&](const Expr& i) {
      Expr v = load(value, intImm(0));
      return seq({storeFn({i}, v), store(value, intImm(0), v + delta)});
    });
  });
}

}  // namespace

void addInjectiveLowerings(LoweringMap& table) {
  for (const char* name : {"Reshape", "Flatten", "Squeeze", "Unsqueeze"}) {
    OpLowering l = computeOp(reshapeRead);
    l.flatCopy = true;
    table[name] = l;
  }
  table["Transpose"] = computeOp(transposeRead);
  table["Transpose"].symbolicSizes = true;
  table["Slice"] = computeOp(sliceRead);
  table["Slice"].symbolicSizes = true;
  table["Gather"] = computeOp(gatherRead);
  table["Gather"].symbolicSizes = true;  // along a static dim
  table["GatherElements"] = computeOp(gatherElementsRead);
  table["Expand"] = computeOp(expandRead);
  table["Expand"].symbolicSizes = true;
  table["Range"].emit = emitRange;
  table["Range"].symbolicSizes = true;
  table["Tile"] = computeOp(tileRead);
  table["Trilu"] = computeOp(triluRead);
  table["Pad"] = computeOp(padRead);
  table["DepthToSpace"] = computeOp(depthToSpaceRead);
  table["SpaceToDepth"] = computeOp(spaceToDepthRead);
  table["Shape"] = computeOp(shapeValue);
  table["Size"] = computeOp([](LowerContext&, const ir::Node& n, const Index&) {
    return intImm(n.inputs[0]->type.numel());
  });
  table["ConstantOfShape"] = computeOp(constantOfShapeValue);
  table["Split"].compute = splitOutputs;
  table["Split"].symbolicSizes = true;
  table["Concat"].emit = emitConcat;
  table["Concat"].symbolicSizes = true;
}

}  // namespace kiln::kernel
