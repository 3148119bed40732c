// Reading a model's inputs and writing its outputs in the formats `kiln run` accepts.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "kiln/support/json.h"
#include "npz.h"

namespace kiln::cli {

using InputSink = std::function<void(const std::string& name, const runtime::NDArray& array)>;
// Reads the model's inputs one at a time and hands each to SINK, in model input order, so a large
// input is never held twice. INFO is the executor's get_input_info(): [{"name","shape","dtype"},
// ...]. PATH is an .npz (arrays named after the inputs; the suffix in any case) or a folder of
// input_0.pb, input_1.pb, ... in input order. Throws kiln::Error naming a missing file or array
// and what was expected.
void forEachInput(const std::string& path, const Json& info, const InputSink& sink);
// zeros, ones or random (uniform [0,1) for floats, [0,10) for integers; fixed SEED).
NamedArrays fillInputs(const std::string& mode, const Json& info, uint64_t seed);
// PATH ending in .npz (any case): one archive; otherwise a folder (created) of output_0.pb,
// output_1.pb ...
void saveOutputs(const std::string& path, const NamedArrays& outputs);

runtime::Shape shapeFromJson(const Json& j);

}  // namespace kiln::cli
