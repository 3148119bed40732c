// `kiln run MODEL.so`: load an artifact (here or on a device), feed inputs, run, write outputs,
// time and profile it.
#include <algorithm>
#include <climits>
#include <iostream>
#include <queue>

#include "commands.h"
#include "exit_codes.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/timing_stats.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "model_io.h"
#include "npz.h"
#include "path_clash.h"
#include "profile_report.h"
#include "run_place.h"

namespace kiln::cli {
namespace {

struct RunArgs {
  std::string artifact, inputs, outputs, fillMode = "random", modelName = "default", params;
  std::string trace, dumpOutputs;
  bool profile = false;
  int printTop = 0, repeat = 10, number = 1, threads = 0;
  bool printTime = false, json = false, noVerify = false;
  uint64_t seed = 0;
  PlaceOptions place;
};

// The K largest entries through a bounded heap: no index array the size of the output.
void printTop(const runtime::NDArray& out, int k) {
  if (!out.dtype().isFloat() || out.dtype().bits != 32) {
    throw Error(strCat("--print-top needs a float32 output, got ", out.dtype().str()));
  }
  const float* p = out.data<float>();
  using Entry = std::pair<float, int64_t>;
  // The smallest kept entry on top; ties keep the lower index, as a stable sort would.
  auto worse = [](const Entry& a, const Entry& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> kept(worse);
  for (int64_t i = 0; i < out.numel(); ++i) {
    if (static_cast<int>(kept.size()) < k) {
      kept.emplace(p[i], i);
    } else if (p[i] > kept.top().first) {
      kept.pop();
      kept.emplace(p[i], i);
    }
  }
  std::vector<Entry> top;
  for (; !kept.empty(); kept.pop()) top.push_back(kept.top());
  std::reverse(top.begin(), top.end());
  std::cout << "top " << top.size() << " of output 0:\n";
  for (const Entry& e : top) std::cout << "  class " << e.second << "  " << e.first << "\n";
}

// --profile, --trace, --dump-outputs: the debug executor runs kernel by kernel.
void debugReport(const runtime::Module& exec, RunPlace& place, const RunArgs& args) {
  if (!args.dumpOutputs.empty()) {
    makeDirectories(args.dumpOutputs);
    Json rows = exec["profile"](int64_t{1}).asJson();
    size_t files = 0;
    auto write = [&](const std::string& file, const runtime::NDArray& a) {
      writeFileAtomic(args.dumpOutputs + "/" + file, cli::serializeNpy(a));
      ++files;
    };
    for (size_t k = 0; k < rows.size(); ++k) {
      const std::string& name = rows[k].at("name").asString();
      for (size_t j = 0; j < rows[k].at("outputs").size(); ++j) {
        runtime::Value v =
            exec["get_node_output"](static_cast<int64_t>(k), static_cast<int64_t>(j));
        if (!rows[k].at("outputs")[j].contains("count")) {
          write(dumpFileName(k, name, j), v.asNDArray());
          continue;
        }
        // A sequence or optional: one file per tensor it holds (none for an empty one).
        runtime::TensorList list = runtime::valueToList(v);
        for (size_t i = 0; i < list.items.size(); ++i)
          write(dumpFileName(k, name, j, static_cast<int64_t>(i)), list.items[i]);
      }
    }
    std::cout << "wrote " << files << " node outputs to '" << args.dumpOutputs << "'\n";
  }
  if (!args.profile && args.trace.empty()) return;
  runtime::ProfileSummary summary = runtime::profileExecutor(
      exec, args.repeat, [&] { return place.time(exec, 1, args.number).front(); });
  if (args.profile) std::cout << formatProfile(summary);
  if (!args.trace.empty()) {
    writeFileAtomic(args.trace, runtime::chromeTrace(summary.lastRun, args.modelName).dump(1));
    std::cout << "wrote a Chrome trace of " << summary.nodes.size() << " nodes to '" << args.trace
              << "' (open it in chrome://tracing or ui.perfetto.dev)\n";
  }
}

void checkPaths(const RunArgs& args) {
  refuseOverwrite("--outputs", args.outputs, "the artifact", args.artifact);
  refuseOverwrite("--outputs", args.outputs, "--inputs", args.inputs);
  refuseOverwrite("--outputs", args.outputs, "--params", args.params);
  refuseOverwrite("--trace", args.trace, "the artifact", args.artifact);
  refuseOverwrite("--trace", args.trace, "--inputs", args.inputs);
  if (!args.trace.empty()) requireOutputFolder(args.trace);
  if (!args.outputs.empty()) requireOutputFolder(args.outputs);
}

void runModel(const RunArgs& args) {
  checkPaths(args);
  applyThreads(args.threads, args.place);
  RunPlace place(args.place, args.artifact, args.params, !args.noVerify);
  bool debug = args.profile || !args.trace.empty() || !args.dumpOutputs.empty();
  runtime::Module exec = place.createExecutor(args.modelName, debug);
  Json inputInfo = exec["get_input_info"]().asJson();
  runtime::PackedFunc setInput = exec["set_input"];
  if (args.inputs.empty()) {
    for (auto& [name, array] : fillInputs(args.fillMode, inputInfo, args.seed)) {
      setInput(name, array);
    }
  } else {
    // One input at a time, so only one copy of an input is alive besides the executor's.
    forEachInput(args.inputs, inputInfo,
                 [&](const std::string& name, const runtime::Value& v) { setInput(name, v); });
  }
  exec["run"]();

  Outputs outputs{exec["get_output_info"]().asJson(), {}};
  for (size_t i = 0; i < outputs.info.size(); ++i) {
    outputs.values.push_back(exec["get_output"](static_cast<int64_t>(i)));
  }
  if (!args.outputs.empty()) saveOutputs(args.outputs, outputs);
  for (size_t i = 0; i < outputs.values.size(); ++i) {
    std::cout << "output '" << outputs.info[i].at("name").asString()
              << "': " << describeOutput(outputs.values[i]) << "\n";
  }
  if (args.printTop > 0) {
    if (!outputs.values.at(0).isNDArray()) {
      throw Error(strCat("--print-top reads output 0, which is ", describeOutput(outputs.values[0]),
                         "; it needs a tensor"));
    }
    printTop(outputs.values[0].asNDArray(), args.printTop);
  }
  outputs.values.clear();
  debugReport(exec, place, args);
  if (args.printTime || args.json) {
    runtime::TimingStats stats = runtime::summarize(place.time(exec, args.repeat, args.number));
    std::cout << runtime::formatTable(stats);
    if (args.json) std::cout << runtime::timingJson(stats).dump() << "\n";
  }
}

}  // namespace

void addRunCommand(CLI::App& app, const std::shared_ptr<const driver::CompileContext>& context) {
  auto args = std::make_shared<RunArgs>();
  args->place.extensions = context->extensions().files();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "Run a compiled model on the local CPU, or on a device over RPC (--device, --rpc, "
      "--rpc-tracker) with the same outputs, timings and profiles");
  cmd->add_option("artifact", args->artifact, "The compiled model (.so)")->required();
  addInputOptions(cmd, args->inputs, args->fillMode, args->seed);
  cmd->add_option("--outputs", args->outputs,
                  "Write outputs to an .npz (path ending in .npz) or a folder of output_0.pb, ...");
  cmd->add_option("--print-top", args->printTop, "Print the K largest entries of output 0")
      ->check(CLI::Range(1, INT_MAX).description("a count >= 1"));
  cmd->add_flag("--print-time", args->printTime,
                "Time the model: mean, median, min, max, std, p90, p99 over --repeat runs");
  cmd->add_option("--repeat", args->repeat, "Timed measurements")
      ->check(CLI::Range(1, INT_MAX).description("a count >= 1"))
      ->capture_default_str();
  cmd->add_option("--number", args->number, "Runs averaged into each measurement")
      ->check(CLI::Range(1, INT_MAX).description("a count >= 1"))
      ->capture_default_str();
  cmd->add_flag("--json", args->json,
                "Also print the timing summary as one JSON object on the last line "
                "(implies --print-time)");
  cmd->add_flag("--profile", args->profile,
                "Run the model kernel by kernel (the debug executor, --repeat times) and print a "
                "table per node: fused operators, median time in us, % of the total, output "
                "shape, GFLOP/s, and the total against the end-to-end time");
  cmd->add_option("--trace", args->trace,
                  "Write a Chrome trace of one profiled run to FILE (JSON; opens in "
                  "chrome://tracing and ui.perfetto.dev)");
  cmd->add_option("--dump-outputs", args->dumpOutputs,
                  "Write every node's outputs to DIR as NNN_<node>_<j>.npy, in run order");
  addModelOptions(cmd, args->modelName, args->params, args->threads, args->noVerify);
  addPlaceOptions(cmd, args->place);
  cmd->callback([args] { runModel(*args); });
}

}  // namespace kiln::cli
