// The generation loop for Python: the same Generator as `kiln generate`, its report as the dict
// of `kiln generate --json`.
#include "generate_binding.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "convert.h"
#include "kiln/runtime/generate.h"

namespace kiln::python {

using namespace pybind11::literals;

void bindGenerate(py::module_& m) {
  py::class_<runtime::SamplingOptions>(m, "SamplingOptions")
      .def(py::init([](bool greedy, int64_t topK, double temperature, double topP, uint64_t seed) {
             return runtime::SamplingOptions{greedy, topK, temperature, topP, seed};
           }),
           "greedy"_a = true, "top_k"_a = 0, "temperature"_a = 1.0, "top_p"_a = 1.0, "seed"_a = 0)
      .def_readonly("greedy", &runtime::SamplingOptions::greedy)
      .def_readonly("top_k", &runtime::SamplingOptions::topK)
      .def_readonly("temperature", &runtime::SamplingOptions::temperature)
      .def_readonly("top_p", &runtime::SamplingOptions::topP)
      .def_readonly("seed", &runtime::SamplingOptions::seed);
  m.def(
      "generate",
      [](const runtime::Module& executor, const std::vector<int64_t>& prompt, int64_t maxNewTokens,
         const runtime::SamplingOptions& sampling, const std::vector<int64_t>& stopIds,
         const py::object& onToken) {
        runtime::GenerateOptions options;
        options.maxNewTokens = maxNewTokens;
        options.sampling = sampling;
        options.stopIds = stopIds;
        if (!onToken.is_none()) {
          options.onToken = [&onToken](int64_t token) {
            py::gil_scoped_acquire acquire;
            onToken(token);
          };
        }
        runtime::GenerateResult result;
        {
          py::gil_scoped_release release;
          runtime::Generator generator(executor);
          result = generator.generate(prompt, options);
        }
        return fromJson(runtime::generateReportJson(result));
      },
      "executor"_a, "prompt"_a, "max_new_tokens"_a, "sampling"_a, "stop_ids"_a, "on_token"_a,
      "Prefill, then decode steps over the cache; the report of `kiln generate --json`.");
}

}  // namespace kiln::python
