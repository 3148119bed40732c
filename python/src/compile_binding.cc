// The compiler for Python: ONNX models (files or serialized ModelProtos) into one library, with
// the GIL released while kiln compiles.
#include "compile_binding.h"

#include <pybind11/stl.h>

#include <cstdlib>
#include <variant>

#include "kiln/driver/compile.h"
#include "kiln/driver/context.h"
#include "kiln/driver/offload_target.h"
#include "kiln/opdef/dim_bounds.h"
#include "kiln/support/error.h"

namespace kiln::python {

using namespace pybind11::literals;

namespace {

// Each dim a size or a symbol's name.
using Shapes = std::map<std::string, std::vector<std::variant<int64_t, std::string>>>;

std::map<std::string, opdef::DimList> dimLists(const Shapes& shapes) {
  std::map<std::string, opdef::DimList> out;
  for (const auto& [name, dims] : shapes) {
    for (const auto& d : dims) {
      out[name].push_back(std::holds_alternative<int64_t>(d) ? opdef::Dim(std::get<int64_t>(d))
                                                             : opdef::Dim::symbol(std::get<1>(d)));
    }
    if (dims.empty()) out[name];
  }
  return out;
}

// (name, path or bytes, input shapes) as the driver takes a model.
driver::OnnxModel onnxModel(const py::tuple& entry) {
  if (entry.size() != 3) {
    throw py::value_error(
        strCat("a model entry is (name, source, input_shapes), got ", entry.size(), " items"));
  }
  driver::OnnxModel model;
  model.name = entry[0].cast<std::string>();
  py::handle source = entry[1];
  if (py::isinstance<py::bytes>(source)) {
    std::string bytes = source.cast<std::string>();
    model.bytes.assign(bytes.begin(), bytes.end());
  } else {
    model.path = source.cast<std::string>();
    if (model.path.empty()) throw Error(strCat("model '", model.name, "': an empty path"));
  }
  model.inputShapes = dimLists(entry[2].cast<Shapes>());
  return model;
}

// A context holding the extensions of KILN_EXTENSION_PATH and EXTENSIONS, as the command line
// loads them; null when there are none (kiln's own tables then serve).
std::shared_ptr<driver::CompileContext> contextWith(const std::vector<std::string>& extensions) {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("KILN_EXTENSION_PATH"); env != nullptr) {
    paths = extension::splitExtensionPath(env);
  }
  paths.insert(paths.end(), extensions.begin(), extensions.end());
  if (paths.empty()) return nullptr;
  auto context = std::make_shared<driver::CompileContext>();
  for (const std::string& path : paths) context->extensions().load(path);
  return context;
}

py::dict offloadRecord(const std::string& model, const transform::OffloadRecord& r) {
  return py::dict("model"_a = model, "backend"_a = r.backend, "pattern"_a = r.pattern,
                  "nodes"_a = r.nodes, "ops"_a = r.ops, "linked"_a = r.linked);
}

}  // namespace

void bindCompile(py::module_& m) {
  m.def(
      "compile_models",
      [](const py::list& entries, const std::string& output, const std::string& target,
         const std::string& executor, const Shapes& inputShapes, const std::string& dimBounds,
         int optLevel, const std::string& dumpIr, const std::string& schedule,
         const std::string& params, const std::string& emit,
         const std::vector<std::string>& extensions, const driver::BackendAttrs& backendAttrs) {
        std::vector<driver::OnnxModel> models;
        for (py::handle entry : entries) models.push_back(onnxModel(entry.cast<py::tuple>()));
        driver::CompileResult result;
        std::vector<std::string> files;
        {
          py::gil_scoped_release release;
          driver::CompileOptions options;
          options.context = contextWith(extensions);
          if (options.context) files = options.context->extensions().files();
          options.target = target;
          options.executor = executor;
          options.inputShapes = dimLists(inputShapes);
          options.dimBounds = opdef::parseDimBounds(dimBounds);
          options.optLevel = optLevel;
          options.dumpIrDir = dumpIr;
          options.schedulePath = schedule;
          options.params = params;
          options.emit = emit;
          options.backendAttrs = backendAttrs;
          result = driver::compileOnnxModels(models, output, options);
        }
        py::list records;
        for (const driver::ModelOffload& o : result.offloads)
          records.append(offloadRecord(o.model, o.record));
        return py::dict("offloads"_a = records, "extensions"_a = files,
                        "kernels"_a = result.kernels, "shared_kernels"_a = result.sharedKernels);
      },
      "models"_a, "output"_a, py::kw_only(), "target"_a = "", "executor"_a = "graph",
      "input_shapes"_a = Shapes{}, "dim_bounds"_a = "", "opt_level"_a = 3, "dump_ir"_a = "",
      "schedule"_a = "", "params"_a = "embedded", "emit"_a = "shared",
      "extensions"_a = std::vector<std::string>{}, "backend_attrs"_a = driver::BackendAttrs{},
      "Compiles MODELS, a list of (name, path or serialized ModelProto bytes, input shapes), into "
      "the library OUTPUT; returns "
      "{'offloads': [...], 'extensions': [loaded files], 'kernels', 'shared_kernels'}.");
}

}  // namespace kiln::python
