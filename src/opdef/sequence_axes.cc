// ReverseSequence's, Compress's and Unique's axes and the dims they give.
#include "kiln/opdef/sequence_axes.h"

#include "kiln/opdef/axes.h"

namespace kiln::opdef {

TimeBatchAxes reverseSequenceAxes(const OpView& op) {
  Dims x = op.inputShape(0), lens = op.inputShape(1);
  int64_t time = op.attrInt("time_axis", 0), batch = op.attrInt("batch_axis", 1);
  if (x.size() < 2 || time < 0 || time > 1 || batch < 0 || batch > 1 || time == batch) {
    fail(op, "time_axis ", time, " and batch_axis ", batch, " of input ", op.inputTypeStr(0),
         "; expected 0 and 1 in some order, on a rank of at least 2");
  }
  TimeBatchAxes axes{static_cast<size_t>(time), static_cast<size_t>(batch)};
  if (lens.size() != 1 || knownAndDiffer(lens[0], x[axes.batch])) {
    fail(op, "sequence_lens is ", op.inputTypeStr(1), "; expected one entry per batch entry (",
         x[axes.batch] == kUnknownDim ? std::string("?") : std::to_string(x[axes.batch]), ")");
  }
  return axes;
}

std::optional<int64_t> selectionAxis(const OpView& op) {
  if (!op.hasAttr("axis")) return std::nullopt;
  return normalizeAxis(op, op.attrInt("axis", 0), static_cast<int64_t>(op.inputShape(0).size()));
}

Dims selectedShape(const OpView& op) {
  std::optional<int64_t> axis = selectionAxis(op);
  if (!axis) return {kUnknownDim};
  Dims out = op.inputShape(0);
  out[static_cast<size_t>(*axis)] = kUnknownDim;
  return out;
}

}  // namespace kiln::opdef
