// Pad's rules in both of its forms: pads and value as attributes (opsets 2-10) or as inputs (pads,
// constant_value, and from opset 18 axes); a negative pad crops.
#pragma once

#include <string>

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

struct PadSpec {
  std::string mode;  // constant, reflect, edge or wrap
  // Per dim of the input: every dim's begin, then every dim's end (0 for an axis not named);
  // nullopt when the pads or axes are not known now.
  std::optional<std::vector<int64_t>> pads;
};

PadSpec padSpec(const OpView& op);
// The output dims; unknown where the input dim or the pads are known only at run time.
Dims padShape(const OpView& op, const PadSpec& spec);

}  // namespace kiln::opdef
