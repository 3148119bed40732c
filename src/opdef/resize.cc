// Resize's and Upsample's inputs per opset and their output sizes.
#include "kiln/opdef/resize.h"

#include <cmath>

namespace kiln::opdef {
namespace {

struct Arguments {
  bool scalesGiven = false, sizesGiven = false;
  std::optional<std::vector<double>> scales, roi;
  std::optional<std::vector<int64_t>> sizes;
};

// Upsample-7 carries float scales as an attribute, Upsample-9 and Resize-10 as input 1,
// Resize-11+ the roi, scales and sizes as inputs 1, 2 and 3 (empty tensors standing for omitted).
Arguments argumentsOf(const OpView& op) {
  Arguments a;
  bool upsample = op.op() == "Upsample";
  if (op.hasAttr("scales")) {
    a.scalesGiven = true;
    a.scales = op.attrFloats("scales");
  }
  size_t scalesInput = upsample || op.numInputs() == 2 ? 1 : 2;
  auto emptyTensor = [&](size_t i) {
    Dims s = op.inputShape(i);
    return s.size() == 1 && s[0] == 0;
  };
  if (op.hasInput(scalesInput) && !emptyTensor(scalesInput)) {
    if (a.scalesGiven) fail(op, "scales are given both as an attribute and as an input");
    a.scalesGiven = true;
    a.scales = op.inputDoubles(scalesInput, "scales");
  }
  if (!upsample && scalesInput == 2 && op.hasInput(1) && !emptyTensor(1)) {
    a.roi = op.inputDoubles(1, "roi");
  }
  if (!upsample && op.numInputs() > 3 && op.hasInput(3) && !emptyTensor(3)) {
    a.sizesGiven = true;
    a.sizes = op.inputInts(3, "sizes");
  }
  if (a.scalesGiven && a.sizesGiven) fail(op, "scales and sizes are both given; expected one");
  if (!a.scalesGiven && !a.sizesGiven) fail(op, "neither scales nor sizes is given; expected one");
  return a;
}

}  // namespace

ResizeGeometry resizeGeometry(const OpView& op) {
  Dims x = op.inputShape(0);
  size_t rank = x.size();
  Arguments a = argumentsOf(op);
  ResizeGeometry g;
  g.legacyPositions = op.op() == "Upsample" || op.numInputs() == 2;
  g.out.assign(rank, kUnknownDim);
  g.scale.assign(rank, 0.0);
  g.roi.assign(2 * rank, 0.0);
  for (size_t d = 0; d < rank; ++d) g.roi[d + rank] = 1.0;
  bool crop = op.attrString("coordinate_transformation_mode", "") == "tf_crop_and_resize";
  if (a.roi) {
    if (a.roi->size() != 2 * rank) {
      fail(op, "roi has ", a.roi->size(), " values for a rank-", rank, " input; expected ",
           2 * rank, " (starts, then ends)");
    }
    g.roi = *a.roi;
  } else if (crop && op.hasInput(1)) {
    return g;  // a roi known only at run time: the output sizes are too
  } else if (crop) {
    fail(op, "tf_crop_and_resize needs roi (input 1) with ", 2 * rank, " values");
  }
  if (a.sizesGiven) {
    if (!a.sizes) return g;
    if (a.sizes->size() != rank) {
      fail(op, "sizes ", listStr(*a.sizes), " has ", a.sizes->size(), " entries; expected ", rank);
    }
    for (size_t d = 0; d < rank; ++d) {
      if ((*a.sizes)[d] < 0) fail(op, "sizes ", listStr(*a.sizes), " has a negative entry");
      g.out[d] = (*a.sizes)[d];
      if (x[d] != kUnknownDim)
        g.scale[d] = static_cast<double>(g.out[d]) / static_cast<double>(x[d]);
    }
    return g;
  }
  if (!a.scales) return g;
  if (a.scales->size() != rank) {
    fail(op, "scales has ", a.scales->size(), " entries for input ", dimsStr(x), "; expected ",
         rank, " (or give sizes)");
  }
  for (size_t d = 0; d < rank; ++d) {
    double s = (*a.scales)[d];
    if (!(s > 0)) fail(op, "scale ", s, " of dim ", d, " is not positive");
    g.scale[d] = s;
    if (x[d] == kUnknownDim) continue;
    double span = crop ? g.roi[d + rank] - g.roi[d] : 1.0;
    g.out[d] = sizeFromDouble(op, std::floor(static_cast<double>(x[d]) * span * s),
                              "the output size (dim times scale)");
  }
  return g;
}

}  // namespace kiln::opdef
