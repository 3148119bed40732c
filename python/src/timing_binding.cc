// Timing and profiling for Python, measured where the model runs (this process, or a session's
// device) by the same code as `kiln run --print-time` and `--profile`.
#include "timing_binding.h"

#include <pybind11/stl.h>

#include "convert.h"
#include "kiln/remote/session.h"
#include "kiln/runtime/profile_summary.h"
#include "kiln/runtime/time_evaluator.h"
#include "kiln/runtime/timing_stats.h"

namespace kiln::python {

using namespace pybind11::literals;

namespace {

py::dict statsDict(const runtime::TimingStats& s) { return fromJson(runtime::timingJson(s)); }

py::dict profileDict(const runtime::ProfileSummary& s, const std::string& model) {
  py::list nodes;
  for (const runtime::NodeTime& n : s.nodes) {
    nodes.append(py::dict(
        "name"_a = n.name, "ops"_a = n.ops, "us"_a = n.us, "percent"_a = n.percent,
        "shape"_a = n.shape,
        "gflops"_a = n.gflops > 0 ? py::object(py::float_(n.gflops)) : py::object(py::none())));
  }
  return py::dict("nodes"_a = nodes, "nodes_us"_a = s.nodesUs, "end_to_end_us"_a = s.endToEndUs,
                  "gap_bound_us"_a = s.gapBoundUs(),
                  "trace"_a = fromJson(runtime::chromeTrace(s.lastRun, model)));
}

}  // namespace

void bindTiming(py::module_& m) {
  m.def(
      "time_evaluate",
      [](const runtime::PackedFunc& f, const py::list& args, int64_t repeat, int64_t number) {
        runtime::Args values = toArgs(args);
        py::gil_scoped_release release;
        return runtime::timeEvaluate(f, values, repeat, number);
      },
      "function"_a, "args"_a, "repeat"_a, "number"_a,
      "One untimed call, then REPEAT measurements of NUMBER calls; each measurement's mean in ms.");
  m.def(
      "summarize",
      [](const std::vector<double>& millis) { return statsDict(runtime::summarize(millis)); },
      "millis"_a, "The statistics of `kiln run --print-time --json` over MILLIS.");
  m.def(
      "profile_executor",
      [](const runtime::Module& debugExecutor, int64_t repeat, int64_t number,
         remote::Session* session, const std::string& model) {
        runtime::ProfileSummary summary;
        {
          py::gil_scoped_release release;
          runtime::PackedFunc run = debugExecutor["run"];
          summary = runtime::profileExecutor(debugExecutor, repeat, [&] {
            return session ? session->timeEvaluator(debugExecutor, "run", {}, 1, number).front()
                           : runtime::timeEvaluate(run, {}, 1, number).front();
          });
        }
        return profileDict(summary, model);
      },
      "debug_executor"_a, "repeat"_a, "number"_a, "session"_a = nullptr, "model"_a = "default",
      "REPEAT profiled runs of a debug executor alternating with timed whole runs: per-node "
      "medians, their sum, the end-to-end median and a Chrome trace of the last run.");
}

}  // namespace kiln::python
