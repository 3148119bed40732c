// Compiles and runs one node test; bfloat16 tensors arrive as UINT16 bit patterns in this
// release's test data and are compared as bfloat16.
#include "run_test.h"

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "kiln/driver/compile.h"
#include "kiln/frontend/onnx/importer.h"
#include "kiln/frontend/onnx/tensor_proto.h"
#include "kiln/ir/constant_eval.h"
#include "kiln/ir/op_registry.h"
#include "kiln/opdef/rule_ops.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "kiln/support/json.h"

namespace fs = std::filesystem;

namespace kiln::conformance {
namespace {

using runtime::DataType;
using runtime::NDArray;

double halfToDouble(uint16_t h) {
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  double mag = exp == 0 ? std::ldexp(static_cast<double>(mant), -24)
               : exp == 31
                   ? (mant ? NAN : INFINITY)
                   : std::ldexp(static_cast<double>(mant | 0x400u), static_cast<int>(exp) - 25);
  return (h & 0x8000u) ? -mag : mag;
}

double bfloatToDouble(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

double valueAt(const NDArray& a, int64_t i) {
  DataType t = a.dtype();
  if (t == DataType::float32()) return a.data<float>()[i];
  if (t == DataType::float64()) return a.data<double>()[i];
  if (t == DataType::float16()) return halfToDouble(a.data<uint16_t>()[i]);
  if (t.code == kDLBfloat) return bfloatToDouble(a.data<uint16_t>()[i]);
  if (t == DataType::int64()) return static_cast<double>(a.data<int64_t>()[i]);
  if (t == DataType::int32()) return a.data<int32_t>()[i];
  if (t == DataType{kDLInt, 16, 1}) return a.data<int16_t>()[i];
  if (t == DataType{kDLUInt, 16, 1}) return a.data<uint16_t>()[i];
  if (t == DataType{kDLUInt, 32, 1}) return a.data<uint32_t>()[i];
  if (t == DataType{kDLUInt, 64, 1}) return static_cast<double>(a.data<uint64_t>()[i]);
  if (t.bits == 8 && t.isInt()) return a.data<int8_t>()[i];
  if (t.bits == 8) return a.data<uint8_t>()[i];
  throw Error("output type " + t.str() + " is not compared");
}

// Element I of an integer or bool array, exactly (a double cannot hold every int64).
std::string integerText(const NDArray& a, int64_t i) {
  DataType t = a.dtype();
  if (t.isUInt() && t.bits == 64) return std::to_string(a.data<uint64_t>()[i]);
  if (t.isInt() && t.bits == 64) return std::to_string(a.data<int64_t>()[i]);
  return strCat(static_cast<int64_t>(valueAt(a, i)));
}

bool sameInteger(const NDArray& a, const NDArray& b, int64_t i) {
  size_t bytes = a.dtype().bytes();
  return std::memcmp(static_cast<const char*>(a.data()) + i * static_cast<int64_t>(bytes),
                     static_cast<const char*>(b.data()) + i * static_cast<int64_t>(bytes),
                     bytes) == 0;
}

// numpy.testing.assert_allclose: the first element out of tolerance and the largest error;
// integers and booleans exactly.
std::string compare(const NDArray& got, NDArray want) {
  want = frontend::onnx::asInputType(want, got.dtype());  // bfloat16 bit patterns
  if (got.shape() != want.shape() || got.dtype() != want.dtype()) {
    return strCat("expected ", want.dtype().str(), runtime::shapeStr(want.shape()), ", got ",
                  got.dtype().str(), runtime::shapeStr(got.shape()));
  }
  if (got.dtype().isString()) {  // strings are equal or not
    for (int64_t i = 0; i < got.numel(); ++i) {
      const std::string &g = got.data<std::string>()[i], &w = want.data<std::string>()[i];
      if (g != w) return strCat("element ", i, ": expected '", w, "', got '", g, "'");
    }
    return "";
  }
  std::string first;
  double worst = 0;
  DataType t = got.dtype();
  bool exact = t.isInt() || t.isUInt() || t.isBool();
  for (int64_t i = 0; i < got.numel(); ++i) {
    if (exact && !sameInteger(got, want, i)) {
      return strCat("element ", i, ": expected ", integerText(want, i), ", got ",
                    integerText(got, i), " (", t.str(), " compares exactly)");
    }
    double g = valueAt(got, i), w = valueAt(want, i);
    bool ok = g == w || (std::isnan(g) && std::isnan(w)) ||
              (!exact && std::fabs(g - w) <= 1e-7 + 1e-3 * std::fabs(w));
    if (ok) continue;
    if (first.empty()) first = strCat("element ", i, ": expected ", w, ", got ", g);
    worst = std::isnan(g - w) ? INFINITY : std::max(worst, std::fabs(g - w));
  }
  return first.empty() ? "" : strCat(first, " (max abs error ", worst, ")");
}

// The kind a model input or output has, from get_input_info / get_output_info.
runtime::ValueKind kindOf(const Json& info) {
  return info.contains("kind") ? runtime::parseValueKind(info.at("kind").asString())
                               : runtime::ValueKind::kTensor;
}

// compare() for each tensor of two lists of one kind.
std::string compareLists(const runtime::TensorList& got, const runtime::TensorList& want) {
  if (got.none != want.none || got.items.size() != want.items.size()) {
    return strCat("expected ", runtime::describeList(want), ", got ", runtime::describeList(got));
  }
  for (size_t k = 0; k < got.items.size(); ++k) {
    std::string diff = compare(got.items[k], want.items[k]);
    if (!diff.empty()) return strCat("tensor ", k, ": ", diff);
  }
  return "";
}

std::string compareOutputs(runtime::Module& ex, const fs::path& dataSet);

std::string runDataSet(runtime::Module& ex, const fs::path& dataSet) {
  Json info = ex["get_input_info"]().asJson();
  for (size_t i = 0;; ++i) {
    fs::path in = dataSet / strCat("input_", i, ".pb");
    if (!fs::exists(in)) break;
    if (i < info.size() && kindOf(info[i]) != runtime::ValueKind::kTensor) {
      runtime::ValueKind kind = kindOf(info[i]);
      ex["set_input"](static_cast<int64_t>(i),
                      runtime::listToValue(frontend::onnx::loadListProto(in.string(), kind), kind));
      continue;
    }
    NDArray value = frontend::onnx::loadTensorProto(in.string());
    if (i < info.size()) {
      value = frontend::onnx::asInputType(value, DataType::parse(info[i].at("dtype").asString()));
    }
    ex["set_input"](static_cast<int64_t>(i), value);
  }
  ex["run"]();
  return compareOutputs(ex, dataSet);
}

// Compares the outputs of EX's last run with DATA_SET's output_K.pb.
std::string compareOutputs(runtime::Module& ex, const fs::path& dataSet) {
  Json outInfo = ex["get_output_info"]().asJson();
  for (int i = 0;; ++i) {
    fs::path out = dataSet / strCat("output_", i, ".pb");
    if (!fs::exists(out)) break;
    runtime::ValueKind kind = static_cast<size_t>(i) < outInfo.size()
                                  ? kindOf(outInfo[static_cast<size_t>(i)])
                                  : runtime::ValueKind::kTensor;
    if (kind != runtime::ValueKind::kTensor) {
      std::string diff =
          compareLists(runtime::valueToList(ex["get_output"](static_cast<int64_t>(i))),
                       frontend::onnx::loadListProto(out.string(), kind));
      if (!diff.empty()) return strCat(dataSet.filename().string(), " output ", i, ": ", diff);
      continue;
    }
    NDArray want = frontend::onnx::loadTensorProto(out.string());
    std::string diff = compare(ex["get_output"](static_cast<int64_t>(i)).asNDArray(), want);
    if (!diff.empty()) return strCat(dataSet.filename().string(), " output ", i, ": ", diff);
  }
  return "";
}

}  // namespace

const char* outcomeName(Outcome o) {
  static const char* const kNames[] = {"pass", "wrong", "rejected", "failed", "internal"};
  return kNames[static_cast<int>(o)];
}

Result runTest(const fs::path& dir, const fs::path& work) {
  fs::path so = work / (dir.filename().string() + ".so");
  Result r;
  try {
    driver::compileOnnxFile((dir / "model.onnx").string(), so.string(), {});
  } catch (const Error& e) {
    return {Outcome::kRejected, e.what()};
  } catch (const std::exception& e) {
    return {Outcome::kInternal, e.what()};
  }
  try {
    runtime::Module lib = runtime::loadModule(so.string());
    runtime::Module ex = lib["default"](runtime::Device::cpu()).asModule();
    std::vector<fs::path> sets;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(entry);
    }
    std::sort(sets.begin(), sets.end());
    for (const fs::path& set : sets) {
      r.detail = runDataSet(ex, set);
      if (!r.detail.empty()) {
        r.outcome = Outcome::kWrong;
        return r;
      }
    }
  } catch (const Error& e) {
    return {Outcome::kFailed, e.what()};
  } catch (const std::exception& e) {
    return {Outcome::kInternal, e.what()};
  }
  fs::remove(so);
  return r;
}

namespace {

bool hasRuleOp(const ir::Graph& g) {
  for (const ir::Node* n : g.nodes()) {
    if (opdef::ruleOps().count(n->op)) return true;
  }
  return false;
}

// Replaces G's inputs with constants holding DATA_SET's input_K.pb, then infers every node again
// and folds those now computed from constants only, in order, as the importer does; false when
// an input is not a tensor.
bool bindInputs(ir::Graph& g, const fs::path& dataSet) {
  std::vector<ir::Value*> inputs = g.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]->type.isTensor()) return false;
    NDArray value =
        frontend::onnx::loadTensorProto((dataSet / strCat("input_", i, ".pb")).string());
    value = frontend::onnx::asInputType(value, inputs[i]->type.dtype);
    g.replaceAllUses(inputs[i], g.addConstant(g.uniqueName(inputs[i]->name + "_value"), value));
  }
  g.inputs().clear();
  ir::FoldBudget budget = ir::FoldBudget::forGraph(g);
  std::vector<ir::Node*> nodes = g.nodes();
  for (ir::Node* n : nodes) {
    ir::inferTypes(*n);
    bool output = false;
    for (const ir::Value* v : n->outputs) output = output || g.isGraphOutput(v);
    if (output) continue;
    if (auto values = ir::evaluateConstant(*n, budget)) {
      ir::replaceWithConstants(g, n, std::move(*values));
    }
  }
  return true;
}

}  // namespace

std::optional<Result> runTestWithConstantInputs(const fs::path& dir, const fs::path& work) {
  fs::path so = work / (dir.filename().string() + ".constant.so");
  fs::path set = dir / "test_data_set_0";
  try {
    std::unique_ptr<ir::Graph> g = frontend::onnx::importOnnx((dir / "model.onnx").string());
    if (!hasRuleOp(*g) || !bindInputs(*g, set)) return std::nullopt;
    driver::compileGraphs({{"default", g.get()}}, so.string(), {});
  } catch (const Error& e) {
    return Result{Outcome::kRejected, e.what()};
  } catch (const std::exception& e) {
    return Result{Outcome::kInternal, e.what()};
  }
  Result r;
  try {
    runtime::Module lib = runtime::loadModule(so.string());
    runtime::Module ex = lib["default"](runtime::Device::cpu()).asModule();
    ex["run"]();
    r.detail = compareOutputs(ex, set);
    if (!r.detail.empty()) r.outcome = Outcome::kWrong;
  } catch (const Error& e) {
    return Result{Outcome::kFailed, e.what()};
  } catch (const std::exception& e) {
    return Result{Outcome::kInternal, e.what()};
  }
  fs::remove(so);
  return r;
}

namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// Runs COMMAND with its output in LOG; returns its exit status (128 + N for a signal N) and
// LOG's text in MESSAGE, without the "error: " kiln puts before a message.
int runCommand(const std::string& command, const fs::path& log, std::string& message) {
  int status = std::system((command + " > " + quoted(log.string()) + " 2>&1").c_str());
  std::ifstream in(log);
  message.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  while (!message.empty() && message.back() == '\n') message.pop_back();
  if (message.rfind("error: ", 0) == 0) message.erase(0, 7);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 255;
}

// The outcome of a kiln command that exited with STATUS: EXPECTED (3 for compile, 4 for run) is
// the clear-error path; anything else but 0 is a bug (5, a crash, a signal).
Outcome failureOf(int status, int expected, Outcome clear) {
  return status == expected ? clear : Outcome::kInternal;
}

}  // namespace

Result runTestCli(const fs::path& dir, const fs::path& work, const std::string& kiln) {
  fs::path so = work / (dir.filename().string() + ".cli.so");
  fs::path log = work / (dir.filename().string() + ".log");
  std::string message;
  if (int status =
          runCommand(strCat(quoted(kiln), " compile ", quoted((dir / "model.onnx").string()),
                            " -o ", quoted(so.string())),
                     log, message);
      status != 0) {
    return {failureOf(status, 3, Outcome::kRejected),
            strCat(message, status == 3 ? "" : strCat(" (exit status ", status, ")"))};
  }
  std::vector<fs::path> sets;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(entry);
  }
  std::sort(sets.begin(), sets.end());
  // Which outputs are sequences or optionals, and so are read as SequenceProto / OptionalProto.
  Json outInfo;
  try {
    outInfo = runtime::loadModule(so.string())["default"](runtime::Device::cpu())
                  .asModule()["get_output_info"]()
                  .asJson();
  } catch (const Error& e) {
    return {Outcome::kFailed, e.what()};
  }
  for (const fs::path& set : sets) {
    fs::path outDir = work / (dir.filename().string() + ".out");
    fs::remove_all(outDir);
    if (int status =
            runCommand(strCat(quoted(kiln), " run ", quoted(so.string()), " --inputs ",
                              quoted(set.string()), " --outputs ", quoted(outDir.string())),
                       log, message);
        status != 0) {
      return {failureOf(status, 4, Outcome::kFailed),
              strCat(message, status == 4 ? "" : strCat(" (exit status ", status, ")"))};
    }
    for (int i = 0;; ++i) {
      fs::path want = set / strCat("output_", i, ".pb");
      if (!fs::exists(want)) break;
      fs::path got = outDir / strCat("output_", i, ".pb");
      if (!fs::exists(got)) return {Outcome::kWrong, strCat("kiln run wrote no ", got.string())};
      runtime::ValueKind kind = static_cast<size_t>(i) < outInfo.size()
                                    ? kindOf(outInfo[static_cast<size_t>(i)])
                                    : runtime::ValueKind::kTensor;
      std::string diff = kind != runtime::ValueKind::kTensor
                             ? compareLists(frontend::onnx::loadListProto(got.string(), kind),
                                            frontend::onnx::loadListProto(want.string(), kind))
                             : compare(frontend::onnx::loadTensorProto(got.string()),
                                       frontend::onnx::loadTensorProto(want.string()));
      if (!diff.empty()) {
        return {Outcome::kWrong, strCat(set.filename().string(), " output ", i, ": ", diff)};
      }
    }
    fs::remove_all(outDir);
  }
  fs::remove(so);
  fs::remove(log);
  return {};
}

}  // namespace kiln::conformance
