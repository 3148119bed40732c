// Reading a model's inputs and writing its outputs in the formats `kiln run` accepts.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "kiln/runtime/packed_func.h"
#include "kiln/support/json.h"
#include "npz.h"

namespace kiln::cli {

// A tensor as an NDArray; a sequence or optional as set_input takes it (a TensorList, an optional's
// NDArray, or none).
using InputSink = std::function<void(const std::string& name, const runtime::Value& value)>;
// Reads the model's inputs one at a time and hands each to SINK, in model input order, so a large
// input is never held twice. INFO is the executor's get_input_info(): [{"name","shape","dtype"
// [,"kind"]}, ...]. PATH is an .npz (arrays named after the inputs; the suffix in any case) or a
// folder of input_0.pb, input_1.pb, ... in input order (TensorProto; SequenceProto or
// OptionalProto for a sequence or optional input). Throws kiln::Error naming a missing file or
// array and what was expected; warns on standard error about arrays or files no input takes.
void forEachInput(const std::string& path, const Json& info, const InputSink& sink);
// zeros, ones or random (uniform [0,1) for floats, [0,10) for integers; fixed SEED).
NamedArrays fillInputs(const std::string& mode, const Json& info, uint64_t seed);
// The model's outputs as get_output gives them, with INFO (get_output_info) for their kinds.
struct Outputs {
  Json info;
  std::vector<runtime::Value> values;
};
// PATH ending in .npz (any case): one archive (tensors only); otherwise a folder (created) of
// output_0.pb, output_1.pb ... (TensorProto, or SequenceProto / OptionalProto).
void saveOutputs(const std::string& path, const Outputs& outputs);
// "float32[1,1000]", "seq of 2 tensors (int64[3], int64[4])", "none": one output for the console.
std::string describeOutput(const runtime::Value& value);
// "float32[1,3]", "seq(int64[*])": an input's or output's type from its info entry.
std::string describeType(const Json& info);
// The kind of an input or output from its get_input_info / get_output_info entry.
runtime::ValueKind kindOf(const Json& info);

runtime::Shape shapeFromJson(const Json& j);

}  // namespace kiln::cli
