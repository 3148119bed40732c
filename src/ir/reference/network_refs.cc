// Reference table entries of the network ops: convolution and pooling, Gemm and MatMul, the
// softmax family, normalizations, reductions and the data movement that constant evaluation does
// not cover (Pad, Tile, Split, GatherElements, DepthToSpace, SpaceToDepth).
#include <cmath>

#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"
#include "op_table.h"

namespace kiln::ir::reference {
namespace {

std::vector<HostTensor> one(HostTensor t) { return {std::move(t)}; }

// Pads, strides and dilations from the node's attributes (auto_pad resolved), over SPATIAL.
WindowParams windowOf(const Call& c, const Dims& spatial, const Dims& kernel) {
  const Attrs& a = c.attrs();
  size_t n = kernel.size();
  WindowParams p;
  p.kernel = kernel;
  p.strides = a.getInts("strides", Dims(n, 1));
  p.dilations = a.getInts("dilations", Dims(n, 1));
  p.ceilMode = a.getInt("ceil_mode", 0) != 0;
  std::string autoPad = a.getString("auto_pad", "NOTSET");
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    samePads(spatial, p, autoPad == "SAME_UPPER");
  } else if (autoPad == "VALID") {
    p.padsBegin.assign(n, 0);
    p.padsEnd.assign(n, 0);
  } else {
    Dims pads = a.getInts("pads", Dims(2 * n, 0));
    if (pads.size() != 2 * n) c.fail(strCat("pads has ", pads.size(), " values, not ", 2 * n));
    p.padsBegin.assign(pads.begin(), pads.begin() + static_cast<int64_t>(n));
    p.padsEnd.assign(pads.begin() + static_cast<int64_t>(n), pads.end());
  }
  return p;
}

Dims spatialOf(const HostTensor& x) { return Dims(x.shape.begin() + 2, x.shape.end()); }

std::vector<HostTensor> conv(const Call& c) {
  const HostTensor &x = c.x(0), &w = c.x(1);
  WindowParams p = windowOf(c, spatialOf(x), spatialOf(w));
  return one(refConv(x, w, c.opt(2), p, c.attrs().getInt("group", 1)));
}

RefFn pool(PoolKind kind) {
  return [kind](const Call& c) {
    if (c.node.outputs.size() > 1) c.fail("MaxPool's Indices output has no reference");
    const HostTensor& x = c.x(0);
    WindowParams p = windowOf(c, spatialOf(x), c.attrs().getInts("kernel_shape", {}));
    return one(refPool(x, p, kind, c.attrs().getInt("count_include_pad", 0) != 0));
  };
}

// Softmax, LogSoftmax and Hardmax: along one axis (opset 13) or over the flattened tail (before).
RefFn softmaxLike(const std::string& op) {
  return [op](const Call& c) {
    const HostTensor& x = c.x(0);
    bool legacy = c.opset < 13 || c.attrs().getInt("kiln.softmax_legacy", 0) != 0;
    std::vector<int64_t> axes = softmaxAxes(c.node, legacy ? 12 : 13);
    auto apply = [&](const HostTensor& t, int64_t axis) {
      return op == "Hardmax" ? refHardmax(t, axis) : refSoftmax(t, axis);
    };
    HostTensor y;
    if (axes.size() <= 1) {
      HostTensor flat = reshaped(x, {1, x.numel()});
      y = axes.empty() ? reshaped(apply(flat, 1), x.shape) : apply(x, axes[0]);
    } else {
      int64_t outer = 1;
      for (int64_t d = 0; d < axes.front(); ++d) outer *= x.shape[static_cast<size_t>(d)];
      y = reshaped(apply(reshaped(x, {outer, x.numel() / outer}), 1), x.shape);
    }
    if (op == "LogSoftmax") {
      for (double& v : y.data) v = std::log(v);
    }
    return one(std::move(y));
  };
}

RefFn reduce(const std::string& op) {
  return [op](const Call& c) {
    Dims axes = c.intsFrom("axes", 1, {});
    if (axes.empty() && c.attrs().getInt("noop_with_empty_axes", 0) != 0) return one(c.x(0));
    return one(refReduceOp(c.x(0), op, axes, c.attrs().getInt("keepdims", 1) != 0));
  };
}

RefFn argReduce(bool isMax) {
  return [isMax](const Call& c) {
    const Attrs& a = c.attrs();
    return one(refArgReduce(c.x(0), isMax, a.getInt("axis", 0), a.getInt("keepdims", 1) != 0,
                            a.getInt("select_last_index", 0) != 0));
  };
}

// The begin pads of ConvTranspose: given, or derived from the output size it was typed with.
std::vector<HostTensor> convTranspose(const Call& c) {
  const HostTensor& x = c.x(0);
  const HostTensor& w = c.x(1);
  const Shape& out = c.node.outputs[0]->type.shape;
  size_t nd = x.shape.size() - 2;
  const Attrs& a = c.attrs();
  Dims strides = a.getInts("strides", Dims(nd, 1)), dil = a.getInts("dilations", Dims(nd, 1));
  Dims pads = a.getInts("pads", Dims(2 * nd, 0)), outPad = a.getInts("output_padding", Dims(nd, 0));
  std::string autoPad = a.getString("auto_pad", "NOTSET");
  Dims begin(nd);
  for (size_t d = 0; d < nd; ++d) {
    int64_t total = strides[d] * (x.shape[d + 2] - 1) + outPad[d] + (w.shape[d + 2] - 1) * dil[d] +
                    1 - out[d + 2];
    bool derived = a.has("output_shape") || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
    begin[d] = autoPad == "VALID" ? 0
               : derived          ? (autoPad == "SAME_LOWER" ? total - total / 2 : total / 2)
                                  : pads[d];
  }
  return one(refConvTranspose(x, w, c.opt(2), out, strides, dil, begin, a.getInt("group", 1)));
}

void addWindowsAndLinearAlgebra(OpTable& t) {
  t["Conv"] = conv;
  t["ConvTranspose"] = convTranspose;
  t["MaxPool"] = pool(PoolKind::kMax);
  t["AveragePool"] = pool(PoolKind::kAverage);
  t["GlobalMaxPool"] = [](const Call& c) { return one(refGlobalPool(c.x(0), PoolKind::kMax)); };
  t["GlobalAveragePool"] = [](const Call& c) {
    return one(refGlobalPool(c.x(0), PoolKind::kAverage));
  };
  t["GlobalLpPool"] = [](const Call& c) {
    return one(refGlobalLpPool(c.x(0), c.attrs().getInt("p", 2)));
  };
  t["Gemm"] = [](const Call& c) {
    const Attrs& a = c.attrs();
    return one(refGemm(c.x(0), c.x(1), c.opt(2), a.getInt("transA", 0) != 0,
                       a.getInt("transB", 0) != 0, a.getFloat("alpha", 1.0),
                       a.getFloat("beta", 1.0)));
  };
  t["MatMul"] = [](const Call& c) { return one(refMatMul(c.x(0), c.x(1))); };
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) t[op] = softmaxLike(op);
}

void addNormalizations(OpTable& t) {
  t["BatchNormalization"] = [](const Call& c) {
    if (c.node.outputs.size() > 1) c.fail("training-mode outputs have no reference");
    return one(
        refBatchNorm(c.x(0), c.x(1), c.x(2), c.x(3), c.x(4), c.attrs().getFloat("epsilon", 1e-5)));
  };
  t["InstanceNormalization"] = [](const Call& c) {
    return one(refInstanceNorm(c.x(0), c.x(1), c.x(2), c.attrs().getFloat("epsilon", 1e-5)));
  };
  t["LayerNormalization"] = [](const Call& c) {
    if (c.node.outputs.size() > 1) c.fail("the Mean and InvStdDev outputs have no reference");
    return one(refLayerNorm(c.x(0), c.x(1), c.opt(2), c.attrs().getInt("axis", -1),
                            c.attrs().getFloat("epsilon", 1e-5)));
  };
  t["LRN"] = [](const Call& c) {
    const Attrs& a = c.attrs();
    return one(refLrn(c.x(0), a.getInt("size"), a.getFloat("alpha", 1e-4), a.getFloat("beta", 0.75),
                      a.getFloat("bias", 1.0)));
  };
  for (const char* op :
       {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}) {
    t[op] = reduce(op);
  }
  t["ArgMax"] = argReduce(true);
  t["ArgMin"] = argReduce(false);
}

// Pad's pads for every dim, from pads (and axes, opset 18) given for some.
Dims fullPads(const Call& c, size_t rank) {
  Dims pads = c.intsFrom("pads", 1, {});
  Dims axes = c.has(3) ? c.intsFrom("", 3, {}) : Dims{};
  if (axes.empty()) return pads;
  Dims full(2 * rank, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    auto d = static_cast<size_t>(axes[i] < 0 ? axes[i] + static_cast<int64_t>(rank) : axes[i]);
    full[d] = pads[i];
    full[d + rank] = pads[i + axes.size()];
  }
  return full;
}

void addMovement(OpTable& t) {
  t["Pad"] = [](const Call& c) {
    const HostTensor& x = c.x(0);
    double value = c.has(2) ? c.x(2).at(0) : c.attrs().getFloat("value", 0.0);
    return one(
        refPad(x, fullPads(c, x.shape.size()), c.attrs().getString("mode", "constant"), value));
  };
  t["Tile"] = [](const Call& c) { return one(refTile(c.x(0), c.intsFrom("", 1, {}))); };
  t["Trilu"] = [](const Call& c) {
    auto k = static_cast<int64_t>(c.has(1) ? c.x(1).at(0) : 0);
    return one(refTrilu(c.x(0), k, c.attrs().getInt("upper", 1) != 0));
  };
  t["Split"] = [](const Call& c) {  // the sizes given, else equal parts
    int64_t axis = c.attrs().getInt("axis", 0);
    auto a =
        static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(c.x(0).shape.size()) : axis);
    Dims sizes = c.intsFrom("split", 1, {});
    auto parts = static_cast<int64_t>(c.node.outputs.size());
    if (sizes.empty()) sizes.assign(c.node.outputs.size(), c.x(0).shape.at(a) / parts);
    return refSplit(c.x(0), axis, sizes);
  };
  t["GatherElements"] = [](const Call& c) {
    return one(refGatherElements(c.x(0), c.x(1), c.attrs().getInt("axis", 0)));
  };
  t["DepthToSpace"] = [](const Call& c) {
    return one(refDepthToSpace(c.x(0), c.attrs().getInt("blocksize"),
                               c.attrs().getString("mode", "DCR") == "CRD"));
  };
  t["SpaceToDepth"] = [](const Call& c) {
    return one(refSpaceToDepth(c.x(0), c.attrs().getInt("blocksize")));
  };
}

}  // namespace

void addNetworkRefs(OpTable& table) {
  addWindowsAndLinearAlgebra(table);
  addNormalizations(table);
  addMovement(table);
}

}  // namespace kiln::ir::reference
