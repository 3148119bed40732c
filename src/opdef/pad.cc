// Pad: the mode, the pads per dim (whichever form gives them) and the padded dims.
#include "kiln/opdef/pad.h"

#include "kiln/opdef/axes.h"

namespace kiln::opdef {
namespace {

std::string modeOf(const OpView& op) {
  std::string mode = op.attrString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap") {
    fail(op, "mode is '", mode, "'; expected 'constant', 'reflect', 'edge' or 'wrap'");
  }
  return mode;
}

// The axes the pads apply to: input 3 (opset 18), else every dim; nullopt when not known now.
std::optional<std::vector<int64_t>> paddedAxes(const OpView& op, int64_t rank) {
  if (op.hasInput(3)) {
    std::optional<std::vector<int64_t>> axes = op.inputInts(3, "axes");
    if (!axes) return std::nullopt;
    return normalizeAxes(op, *axes, rank, "axes");
  }
  std::vector<int64_t> all;
  for (int64_t d = 0; d < rank; ++d) all.push_back(d);
  return all;
}

}  // namespace

PadSpec padSpec(const OpView& op) {
  PadSpec spec{modeOf(op), std::nullopt};
  IntList given = intsFromAttrOrInput(op, "pads", 1);
  if (!given.present) {
    fail(op, "pads are required (input 1 from opset 11, the 'pads' attribute before)");
  }
  auto rank = static_cast<int64_t>(op.inputShape(0).size());
  std::optional<std::vector<int64_t>> axes = paddedAxes(op, rank);
  if (!given.values || !axes) return spec;
  const std::vector<int64_t>& pads = *given.values;
  size_t n = axes->size();
  if (pads.size() != 2 * n) {
    fail(op, "pads ", listStr(pads), " has ", pads.size(), " entries; expected ", 2 * n,
         " (a begin and an end for each of the ", n, " padded axes)");
  }
  std::vector<int64_t> perDim(2 * static_cast<size_t>(rank), 0);
  for (size_t k = 0; k < n; ++k) {
    auto d = static_cast<size_t>((*axes)[k]);
    perDim[d] = pads[k];
    perDim[d + static_cast<size_t>(rank)] = pads[k + n];
  }
  spec.pads = perDim;
  return spec;
}

Dims padShape(const OpView& op, const PadSpec& spec) {
  Dims in = op.inputShape(0);
  if (!spec.pads) return Dims(in.size(), kUnknownDim);
  const std::vector<int64_t>& pads = *spec.pads;
  Dims out = in;
  for (size_t d = 0; d < in.size(); ++d) {
    int64_t begin = pads[d], end = pads[d + in.size()];
    if (in[d] == kUnknownDim) continue;
    if (spec.mode != "constant" && in[d] == 0 && (begin > 0 || end > 0)) {
      fail(op, "cannot pad the empty dim ", d, " of ", op.inputTypeStr(0), " in mode '", spec.mode,
           "'; expected a non-empty dim");
    }
    if (__builtin_add_overflow(in[d], begin, &out[d]) ||
        __builtin_add_overflow(out[d], end, &out[d]) || out[d] < 0) {
      fail(op, "pads ", listStr(pads), " give dim ", d, " of ", op.inputTypeStr(0),
           " an invalid size; expected a size from 0 to the int64 limit");
    }
  }
  return out;
}

}  // namespace kiln::opdef
