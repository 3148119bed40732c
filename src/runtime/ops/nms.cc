// NonMaxSuppression: per batch and class, boxes by falling score, each kept unless it overlaps a
// kept one by more than the IoU threshold; outputs (batch, class, box) triples.
#include <algorithm>
#include <numeric>

#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

struct Box {
  float y1, x1, y2, x2;  // corners, y1 <= y2 and x1 <= x2
};

Box boxAt(const float* b, bool centerPoint) {
  if (centerPoint) {  // x_center, y_center, width, height
    float hw = b[2] / 2, hh = b[3] / 2;
    return {b[1] - hh, b[0] - hw, b[1] + hh, b[0] + hw};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

bool overlapsMoreThan(const Box& a, const Box& b, float threshold) {
  float iy = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  float ix = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (iy <= 0 || ix <= 0) return false;
  float inter = iy * ix;
  float areaA = (a.y2 - a.y1) * (a.x2 - a.x1), areaB = (b.y2 - b.y1) * (b.x2 - b.x1);
  float uni = areaA + areaB - inter;
  return uni > 0 && inter / uni > threshold;
}

}  // namespace

void runNonMaxSuppression(RuntimeOpContext& ctx) {
  const NDArray& boxes = ctx.input(0);
  const NDArray& scores = ctx.input(1);
  if (boxes.dtype() != DataType::float32() || scores.dtype() != DataType::float32()) {
    fail(ctx, "boxes and scores are ", boxes.dtype().str(), " and ", scores.dtype().str(),
         "; expected float32");
  }
  if (boxes.ndim() != 3 || boxes.shape()[2] != 4 || scores.ndim() != 3 ||
      scores.shape()[0] != boxes.shape()[0] || scores.shape()[2] != boxes.shape()[1]) {
    fail(ctx, "boxes ", shapeStr(boxes.shape()), " and scores ", shapeStr(scores.shape()),
         " do not match; expected [batches, boxes, 4] and [batches, classes, boxes]");
  }
  int64_t maxOut = ctx.numInputs() > 2 && ctx.hasInput(2)
                       ? inputScalarInt(ctx, 2, "max_output_boxes_per_class")
                       : 0;
  double iou =
      ctx.numInputs() > 3 && ctx.hasInput(3) ? inputScalarDouble(ctx, 3, "iou_threshold") : 0.0;
  bool hasScoreThreshold = ctx.numInputs() > 4 && ctx.hasInput(4);
  double scoreThreshold = hasScoreThreshold ? inputScalarDouble(ctx, 4, "score_threshold") : 0.0;
  bool centerPoint = attrInt(ctx, "center_point_box", 0) != 0;
  int64_t batches = boxes.shape()[0], classes = scores.shape()[1], n = boxes.shape()[1];
  std::vector<int64_t> selected;  // triples
  for (int64_t b = 0; b < batches; ++b) {
    const float* bb = boxes.data<float>() + b * n * 4;
    for (int64_t c = 0; c < classes; ++c) {
      const float* sc = scores.data<float>() + (b * classes + c) * n;
      std::vector<int64_t> order;
      for (int64_t i = 0; i < n; ++i) {
        if (!hasScoreThreshold || sc[i] > scoreThreshold) order.push_back(i);
      }
      std::sort(order.begin(), order.end(), [&](int64_t a, int64_t z) {  // ties: lower index
        return sc[a] != sc[z] ? sc[a] > sc[z] : a < z;
      });
      std::vector<Box> kept;
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= maxOut) break;
        Box box = boxAt(bb + i * 4, centerPoint);
        bool suppressed = std::any_of(kept.begin(), kept.end(), [&](const Box& k) {
          return overlapsMoreThan(k, box, static_cast<float>(iou));
        });
        if (suppressed) continue;
        kept.push_back(box);
        selected.insert(selected.end(), {b, c, i});
      }
    }
  }
  NDArray y = ctx.output(0, {static_cast<int64_t>(selected.size() / 3), 3});
  std::copy(selected.begin(), selected.end(), y.data<int64_t>());
}

}  // namespace kiln::runtime::ops
