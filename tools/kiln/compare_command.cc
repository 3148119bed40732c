// `kiln compare MODEL.onnx`: compile the model (or take --library) and check it node by node
// against the reference implementation of each operator.
#include <algorithm>
#include <iostream>

#include "commands.h"
#include "compare_report.h"
#include "exit_codes.h"
#include "extension_options.h"
#include "input_shapes.h"
#include "kiln/driver/compare.h"
#include "kiln/driver/compile.h"
#include "kiln/driver/offload_target.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "kiln/support/temp_path.h"
#include "model_io.h"

namespace kiln::cli {
namespace {

struct CompareArgs {
  std::string model, library, modelName = "default", params, inputShapes;
  std::string inputs, fillMode = "random";
  uint64_t seed = 0;
  driver::CompileOptions options;
  std::shared_ptr<driver::BackendAttrs> backendAttrs = std::make_shared<driver::BackendAttrs>();
  driver::CompareOptions tolerance;
  bool all = false, json = false;
};

// The debug executor of the model to check: compiled here (graph executor) unless --library.
runtime::Module debugExecutor(const CompareArgs& args, const std::string& library) {
  runtime::Module lib = runtime::loadModule(
      library, {.extensions = driver::contextOf(args.options).extensions().files()});
  runtime::Module factory = lib["get_factory"](args.modelName).asModule();
  if (!args.params.empty()) factory = factory["load_params_file"](args.params).asModule();
  return factory["debug_create"](runtime::Device::cpu()).asModule();
}

// The inputs in model input order, checked against the executor's: a --library built from another
// model is refused here.
std::vector<runtime::NDArray> readInputs(const CompareArgs& args, const ir::Graph& graph,
                                         const runtime::Module& exec) {
  Json info = exec["get_input_info"]().asJson();
  NamedArrays named;
  if (args.inputs.empty()) {
    named = fillInputs(args.fillMode, info, args.seed);
  } else {
    forEachInput(args.inputs, info, [&](const std::string& name, const runtime::Value& v) {
      if (!v.isNDArray()) {
        throw Error(strCat("input '", name,
                           "' is a sequence or optional; kiln compare checks "
                           "models whose inputs are tensors"));
      }
      named.emplace_back(name, v.asNDArray());
    });
  }
  std::vector<runtime::NDArray> inputs;
  for (const ir::Value* v : graph.inputs()) {
    auto it =
        std::find_if(named.begin(), named.end(), [&](const auto& n) { return n.first == v->name; });
    if (it == named.end()) {
      throw Error(strCat("the compiled model has no input '", v->name, "' (it has ", info.size(),
                         " inputs); --library must be compiled from '", args.model, "'"));
    }
    ir::TensorType compiled{it->second.dtype(), it->second.shape()};
    if (!(compiled == v->type)) {
      throw Error(strCat("the compiled model's input '", v->name, "' is ", compiled.str(), "; '",
                         args.model, "' has ", v->type.str(),
                         ": --library must be compiled from it"));
    }
    inputs.push_back(it->second);
  }
  if (inputs.size() != info.size()) {
    throw Error(strCat("the compiled model has ", info.size(), " inputs and '", args.model,
                       "' has ", inputs.size(), "; --library must be compiled from it"));
  }
  return inputs;
}

// The reference evaluator computes numeric tensors: a model holding a sequence, an optional or
// strings anywhere is refused before anything is compiled.
void requireNumericTensors(const ir::Graph& graph) {
  auto check = [](const ir::Value* v) {
    if (v != nullptr && (!v->type.isTensor() || v->type.dtype.isString())) {
      throw Error(strCat("'", v->name, "' is ", v->type.str(),
                         "; kiln compare checks models whose values are numeric tensors"));
    }
  };
  for (const ir::Value* v : graph.inputs()) check(v);
  for (const ir::Node* node : graph.nodes()) {
    for (const ir::Value* v : node->outputs) check(v);
  }
}

void runCompare(const CompareArgs& args) {
  if (!fileExists(args.model)) throw Error(strCat("model file '", args.model, "' does not exist"));
  driver::CompileOptions options = args.options;
  options.inputShapes = parseInputShapes(args.inputShapes);
  options.backendAttrs = *args.backendAttrs;
  options.modelName = args.modelName;
  std::unique_ptr<ir::Graph> graph = driver::importModel(args.model, options);
  requireNumericTensors(*graph);
  TempPath scratch = TempPath::folder("kiln-compare");
  std::string library = args.library;
  if (library.empty()) {
    library = scratch.path() + "/model.so";
    driver::compileOnnxFile(args.model, library, options);
  }
  runtime::Module exec = debugExecutor(args, library);
  driver::CompareReport report =
      driver::compareWithReference(*graph, readInputs(args, *graph, exec), exec, args.tolerance);
  std::cout << (args.json ? compareJson(report, args.tolerance).dump(1) + "\n"
                          : formatCompare(report, args.tolerance, args.all));
  if (report.firstDivergence() != nullptr) throw Diverged();
}

}  // namespace

void addCompareCommand(CLI::App& app, std::shared_ptr<const driver::CompileContext> context) {
  auto args = std::make_shared<CompareArgs>();
  args->options.context = std::move(context);
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Check a compiled model node by node against a plain reference implementation of each "
      "operator, and report the first node whose output diverges (exit status 1) or that all "
      "agree");
  cmd->add_option("model", args->model, "The ONNX model")->required();
  cmd->add_option("--library", args->library,
                  "Check this library, compiled from MODEL with --executor graph, instead of "
                  "compiling MODEL here");
  cmd->add_option("--model-name", args->modelName, "Which model of --library to check")
      ->capture_default_str();
  cmd->add_option("--params", args->params,
                  "Load the weights of --library from FILE (written by kiln compile --params "
                  "external)");
  cmd->add_option("--target", args->options.target,
                  "Code generation target when compiling here (as kiln compile, offload "
                  "backends included; default: the host CPU)");
  addTargetAttrOptions(cmd, *args->options.context, args->backendAttrs);
  cmd->add_option("--opt-level", args->options.optLevel, "Optimisation level when compiling here")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  cmd->add_option("--input-shapes", args->inputShapes,
                  "Shapes for inputs with symbolic dims: \"name:[d0,d1,...] name2:[...]\"");
  addInputOptions(cmd, args->inputs, args->fillMode, args->seed);
  cmd->add_option("--rtol", args->tolerance.rtol,
                  "A float output agrees when max |kiln - reference| <= atol + rtol * max "
                  "|reference|; integer and boolean outputs must be equal")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--atol", args->tolerance.atol, "See --rtol")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--all", args->all, "List every compared node, not only the first divergence");
  cmd->add_flag("--json", args->json, "Print the report as one JSON object");
  cmd->callback([args] { runCompare(*args); });
}

}  // namespace kiln::cli
