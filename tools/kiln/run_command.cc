// `kiln run MODEL.so`: load an artifact, feed inputs, run, write outputs, time it.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <numeric>

#include "commands.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/thread_pool.h"
#include "kiln/support/error.h"
#include "model_io.h"
#include "timing_stats.h"

namespace kiln::cli {
namespace {

struct RunArgs {
  std::string artifact, inputs, outputs, fillMode = "random", modelName = "default";
  int printTop = 0, repeat = 10, number = 1, threads = 0;
  bool printTime = false, json = false;
  uint64_t seed = 0;
};

void printTop(const runtime::NDArray& out, int k) {
  if (!out.dtype().isFloat() || out.dtype().bits != 32) {
    throw Error(strCat("--print-top needs a float32 output, got ", out.dtype().str()));
  }
  const float* p = out.data<float>();
  std::vector<int64_t> idx(static_cast<size_t>(out.numel()));
  std::iota(idx.begin(), idx.end(), 0);
  size_t n = std::min(idx.size(), static_cast<size_t>(k));
  std::partial_sort(idx.begin(), idx.begin() + n, idx.end(),
                    [&](int64_t a, int64_t b) { return p[a] > p[b]; });
  std::cout << "top " << n << " of output 0:\n";
  for (size_t i = 0; i < n; ++i) std::cout << "  class " << idx[i] << "  " << p[idx[i]] << "\n";
}

std::vector<double> timeRuns(const runtime::PackedFunc& run, int repeat, int number) {
  if (repeat < 1 || number < 1) {
    throw Error(strCat("--repeat and --number must be >= 1, got ", repeat, " and ", number));
  }
  std::vector<double> millis;
  for (int r = 0; r < repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < number; ++i) run();
    auto end = std::chrono::steady_clock::now();
    millis.push_back(std::chrono::duration<double, std::milli>(end - start).count() / number);
  }
  return millis;
}

void runModel(const RunArgs& args) {
  if (args.threads > 0) runtime::ThreadPool::global().setNumThreads(args.threads);
  runtime::Module lib = runtime::loadModule(args.artifact);
  runtime::Module exec = lib[args.modelName](runtime::Device::cpu()).asModule();
  Json inputInfo = exec["get_input_info"]().asJson();
  NamedArrays inputs = args.inputs.empty() ? fillInputs(args.fillMode, inputInfo, args.seed)
                                           : loadInputs(args.inputs, inputInfo);
  runtime::PackedFunc setInput = exec["set_input"];
  for (const auto& [name, array] : inputs) setInput(name, array);
  runtime::PackedFunc run = exec["run"];
  run();

  Json outputInfo = exec["get_output_info"]().asJson();
  NamedArrays outputs;
  for (size_t i = 0; i < outputInfo.size(); ++i) {
    outputs.emplace_back(outputInfo[i].at("name").asString(),
                         exec["get_output"](static_cast<int64_t>(i)).asNDArray());
  }
  if (!args.outputs.empty()) saveOutputs(args.outputs, outputs);
  for (const auto& [name, array] : outputs) {
    std::cout << "output '" << name << "': " << array.dtype().str()
              << runtime::shapeStr(array.shape()) << "\n";
  }
  if (args.printTop > 0) printTop(outputs.at(0).second, args.printTop);
  if (args.printTime || args.json) {
    TimingStats stats = summarize(timeRuns(run, args.repeat, args.number));
    std::cout << formatTable(stats);
    if (args.json) std::cout << formatJson(stats) << "\n";
  }
}

}  // namespace

void addRunCommand(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Run a compiled model on the local CPU");
  cmd->add_option("artifact", args->artifact, "The compiled model (.so)")->required();
  cmd->add_option("--inputs", args->inputs,
                  "An .npz with arrays named after the model inputs, or a folder of "
                  "input_0.pb, input_1.pb, ... (ONNX TensorProto, in model input order)");
  cmd->add_option("--fill-mode", args->fillMode, "Inputs to use when --inputs is not given")
      ->check(CLI::IsMember({"zeros", "ones", "random"}))
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of --fill-mode random")->capture_default_str();
  cmd->add_option("--outputs", args->outputs,
                  "Write outputs to an .npz (path ending in .npz) or a folder of output_0.pb, ...");
  cmd->add_option("--model-name", args->modelName, "Which model of the library to run")
      ->capture_default_str();
  cmd->add_option("--print-top", args->printTop, "Print the K largest entries of output 0");
  cmd->add_flag("--print-time", args->printTime,
                "Time the model: mean, median, min, max, std, p90, p99 over --repeat runs");
  cmd->add_option("--repeat", args->repeat, "Timed measurements")->capture_default_str();
  cmd->add_option("--number", args->number, "Runs averaged into each measurement")
      ->capture_default_str();
  cmd->add_flag("--json", args->json,
                "Also print the timing summary as one JSON object on the last line "
                "(implies --print-time)");
  cmd->add_option("--threads", args->threads,
                  "Worker threads (default: KILN_NUM_THREADS, else all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([args] { runModel(*args); });
}

}  // namespace kiln::cli
