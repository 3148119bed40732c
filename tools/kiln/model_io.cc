// Input and output files of `kiln run`: .npz archives and ONNX TensorProto folders.
#include "model_io.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iostream>
#include <random>

#include "commands.h"
#include "kiln/frontend/onnx/tensor_proto.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"

namespace kiln::cli {
namespace {

// ".npz" in any case: X.NPZ is an archive, not a folder to create.
bool hasNpzSuffix(const std::string& path) {
  if (path.size() < 4) return false;
  std::string tail = path.substr(path.size() - 4);
  for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return tail == ".npz";
}

std::string describe(const Json& input) {
  return strCat(input.at("dtype").asString(), runtime::shapeStr(shapeFromJson(input.at("shape"))));
}

// Says which entries of an --inputs file or folder no model input took: a misspelt name or a
// file for another model is otherwise silently ignored.
void warnUnused(const std::string& path, const std::vector<std::string>& unused, const Json& info) {
  if (unused.empty()) return;
  std::string names, inputs;
  for (const std::string& n : unused) names += (names.empty() ? "'" : ", '") + n + "'";
  for (const Json& i : info.asArray()) {
    inputs += (inputs.empty() ? "'" : ", '") + i.at("name").asString() + "'";
  }
  std::cerr << "warning: --inputs '" << path << "' has " << names
            << ", which no model input takes (the model's inputs: "
            << (inputs.empty() ? "none" : inputs) << ")\n";
}

void readFromNpz(const std::string& path, const Json& info, const InputSink& sink) {
  NamedArrays all = readNpz(path);
  std::vector<std::string> unused;
  for (const auto& entry : all) {
    const std::string& name = entry.first;
    bool taken = std::any_of(info.asArray().begin(), info.asArray().end(),
                             [&](const Json& i) { return i.at("name").asString() == name; });
    if (!taken) unused.push_back(name);
  }
  warnUnused(path, unused, info);
  for (const Json& input : info.asArray()) {
    const std::string& name = input.at("name").asString();
    if (kindOf(input) != runtime::ValueKind::kTensor) {
      throw Error(strCat("model input '", name, "' is ", describeType(input),
                         "; an .npz holds tensors only: pass a folder of input_N.pb with a "
                         "SequenceProto or OptionalProto for it"));
    }
    auto it = std::find_if(all.begin(), all.end(), [&](const auto& a) { return a.first == name; });
    if (it == all.end()) {
      std::string have;
      for (const auto& a : all) have += (have.empty() ? "" : ", ") + a.first;
      throw Error(strCat("'", path, "' has no array named '", name, "' for model input '", name,
                         "' (expected ", describe(input),
                         "); it has: ", have.empty() ? "nothing" : have));
    }
    sink(name, it->second);
    it->second = runtime::NDArray();  // handed over: free it before the next input is read
  }
}

void readFromFolder(const std::string& dir, const Json& info, const InputSink& sink) {
  std::vector<std::string> unused;
  for (size_t i = info.size(); fileExists(strCat(dir, "/input_", i, ".pb")); ++i) {
    unused.push_back(strCat("input_", i, ".pb"));
  }
  warnUnused(dir, unused, info);
  for (size_t i = 0; i < info.size(); ++i) {
    std::string file = strCat(dir, "/input_", i, ".pb");
    const Json& input = info[i];
    if (!fileExists(file)) {
      throw Error(strCat("missing input file '", file, "' for model input ", i, " '",
                         input.at("name").asString(), "' (expected ", describe(input), ")"));
    }
    runtime::ValueKind kind = kindOf(input);
    if (kind != runtime::ValueKind::kTensor) {
      sink(input.at("name").asString(),
           runtime::listToValue(frontend::onnx::loadListProto(file, kind), kind));
      continue;
    }
    runtime::DataType want = runtime::DataType::parse(input.at("dtype").asString());
    sink(input.at("name").asString(),
         runtime::Value(frontend::onnx::asInputType(frontend::onnx::loadTensorProto(file), want)));
  }
}

template <typename T>
void fillWith(runtime::NDArray& a, const std::string& mode, std::mt19937_64& rng) {
  T* p = a.data<T>();
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (mode == "zeros") {
      p[i] = T(0);
    } else if (mode == "ones") {
      p[i] = T(1);
    } else if constexpr (std::is_floating_point_v<T>) {
      p[i] = std::uniform_real_distribution<T>(0, 1)(rng);
    } else {
      p[i] = static_cast<T>(std::uniform_int_distribution<int>(0, 9)(rng));
    }
  }
}

}  // namespace

std::string describeType(const Json& input) {
  return runtime::typeText(kindOf(input), runtime::DataType::parse(input.at("dtype").asString()),
                           shapeFromJson(input.at("shape")), input.contains("unranked"));
}

runtime::ValueKind kindOf(const Json& info) {
  return info.contains("kind") ? runtime::parseValueKind(info.at("kind").asString())
                               : runtime::ValueKind::kTensor;
}

runtime::Shape shapeFromJson(const Json& j) {
  runtime::Shape shape;
  for (const Json& d : j.asArray()) shape.push_back(d.asInt());
  return shape;
}

void forEachInput(const std::string& path, const Json& info, const InputSink& sink) {
  if (!fileExists(path)) throw Error(strCat("inputs '", path, "' do not exist"));
  if (isDirectory(path)) return readFromFolder(path, info, sink);
  if (hasNpzSuffix(path)) return readFromNpz(path, info, sink);
  throw Error(strCat("--inputs '", path, "': expected an .npz file or a folder of input_N.pb"));
}

NamedArrays fillInputs(const std::string& mode, const Json& info, uint64_t seed) {
  std::mt19937_64 rng(seed);
  NamedArrays inputs;
  for (const Json& input : info.asArray()) {
    if (kindOf(input) != runtime::ValueKind::kTensor || input.at("dtype").asString() == "string") {
      throw Error(strCat("--fill-mode cannot make model input '", input.at("name").asString(),
                         "', which is ", describeType(input),
                         "; pass --inputs with a folder of input_N.pb"));
    }
    runtime::DataType t = runtime::DataType::parse(input.at("dtype").asString());
    runtime::NDArray a = runtime::NDArray::empty(shapeFromJson(input.at("shape")), t);
    if (t == runtime::DataType::float32())
      fillWith<float>(a, mode, rng);
    else if (t == runtime::DataType::float64())
      fillWith<double>(a, mode, rng);
    else if (t == runtime::DataType::int64())
      fillWith<int64_t>(a, mode, rng);
    else if (t == runtime::DataType::int32())
      fillWith<int32_t>(a, mode, rng);
    else if (t.bits == 8)
      fillWith<uint8_t>(a, mode, rng);
    else
      throw Error(strCat("--fill-mode cannot fill inputs of type ", t.str()));
    if (t.isBool()) {
      for (int64_t i = 0; i < a.numel(); ++i) a.data<uint8_t>()[i] &= 1;
    }
    inputs.emplace_back(input.at("name").asString(), a);
  }
  return inputs;
}

void saveOutputs(const std::string& path, const Outputs& outputs) {
  const Json& info = outputs.info;
  if (hasNpzSuffix(path)) {
    NamedArrays arrays;
    for (size_t i = 0; i < outputs.values.size(); ++i) {
      if (kindOf(info[i]) != runtime::ValueKind::kTensor) {
        throw Error(strCat("--outputs '", path, "': output '", info[i].at("name").asString(),
                           "' is ", describeType(info[i]),
                           "; an .npz holds tensors only: write a folder of output_N.pb"));
      }
      arrays.emplace_back(info[i].at("name").asString(), outputs.values[i].asNDArray());
    }
    return writeNpz(path, arrays);
  }
  makeDirectories(path);
  for (size_t i = 0; i < outputs.values.size(); ++i) {
    const std::string& name = info[i].at("name").asString();
    std::string file = strCat(path, "/output_", i, ".pb");
    const runtime::Value& v = outputs.values[i];
    runtime::ValueKind kind = kindOf(info[i]);
    if (kind == runtime::ValueKind::kTensor) {
      frontend::onnx::saveTensorProto(v.asNDArray(), name, file);
      continue;
    }
    frontend::onnx::saveListProto(runtime::valueToList(v), kind, name, file);
  }
}

std::string describeOutput(const runtime::Value& value) {
  if (value.isNDArray()) {
    const runtime::NDArray& a = value.asNDArray();
    return a.dtype().str() + runtime::shapeStr(a.shape());
  }
  if (value.isNone()) return "none";
  return runtime::describeList(value.asTensorList());
}

void addInputOptions(CLI::App* cmd, std::string& inputs, std::string& fillMode, uint64_t& seed) {
  cmd->add_option("--inputs", inputs,
                  "An .npz with arrays named after the model inputs, or a folder of "
                  "input_0.pb, input_1.pb, ... (ONNX TensorProto, in model input order)");
  cmd->add_option("--fill-mode", fillMode, "Inputs to use when --inputs is not given")
      ->check(CLI::IsMember({"zeros", "ones", "random"}))
      ->capture_default_str();
  cmd->add_option("--seed", seed, "Seed of --fill-mode random")->capture_default_str();
}

}  // namespace kiln::cli
