// Composite targets: which loaded backends partition, in which order, with which attributes.
#include "kiln/driver/offload_target.h"

#include <algorithm>

#include "kiln/driver/context.h"
#include "kiln/support/error.h"
#include "kiln/support/split.h"

namespace kiln::driver {
namespace {

std::vector<PipelineEntry> entries(const Pipeline& pipeline, const std::vector<std::string>& names,
                                   const std::string& backend) {
  std::vector<PipelineEntry> out;
  for (const std::string& name : names) {
    try {
      out.push_back(pipeline.entry(name));
    } catch (const Error& e) {
      throw Error(strCat("backend '", backend, "' asks for a pass: ", e.what()));
    }
  }
  return out;
}

}  // namespace

CompositeTarget splitTarget(const std::string& text) {
  size_t start = text.find_first_not_of(" \t");
  if (start == std::string::npos) return {};
  size_t end = text.find_first_of(" \t", start);
  std::string kinds =
      text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  std::string rest = end == std::string::npos ? "" : text.substr(end);
  if (kinds.find(',') == std::string::npos && (kinds == "llvm" || kinds.rfind('-', 0) == 0)) {
    return {{}, text};
  }
  CompositeTarget out;
  std::vector<std::string> names = splitOn(kinds, ',');
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    if (name.empty()) {
      throw Error(strCat("--target '", text, "' has an empty name in '", kinds,
                         "'; expected backends separated by commas, then llvm"));
    }
    if (name == "llvm") {
      if (i + 1 != names.size()) {
        throw Error(strCat("--target '", text, "' names '", names[i + 1],
                           "' after llvm; llvm compiles what the backends leave, so it comes "
                           "last"));
      }
      continue;
    }
    if (std::find(out.backends.begin(), out.backends.end(), name) != out.backends.end()) {
      throw Error(strCat("--target '", text, "' names backend '", name, "' twice"));
    }
    out.backends.push_back(name);
  }
  out.codegen = rest.find_first_not_of(" \t") == std::string::npos ? "" : "llvm" + rest;
  return out;
}

std::vector<OffloadStep> offloadSteps(const CompileContext& context,
                                      const std::vector<std::string>& backends,
                                      const BackendAttrs& attrs, const std::string& triple) {
  const extension::ExtensionSet& loaded = context.extensions();
  for (const auto& [name, values] : attrs) {
    if (std::find(backends.begin(), backends.end(), name) == backends.end() && !values.empty()) {
      throw Error(strCat("--target-", name, "-", values.begin()->first,
                         " is given, but --target does not name backend '", name,
                         "'; add it, e.g. --target \"", name, ",llvm\""));
    }
  }
  std::vector<OffloadStep> steps;
  for (const std::string& name : backends) {
    const extension::Backend* backend = loaded.find(name);
    if (backend == nullptr) {
      std::string known;
      for (const extension::Backend& b : loaded.backends()) {
        known += (known.empty() ? "" : ", ") + b.name;
      }
      throw Error(strCat("--target names backend '", name,
                         "', which no loaded extension provides (loaded backends: ",
                         known.empty() ? "none; load extensions with --extension PATH or "
                                         "KILN_EXTENSION_PATH"
                                       : known,
                         ")"));
    }
    auto given = attrs.find(name);
    OffloadStep step;
    step.backend = extension::partitionBackend(
        *backend, given == attrs.end() ? extension::AttrValues{} : given->second, triple);
    step.before = entries(context.pipeline(), backend->passesBefore, name);
    step.after = entries(context.pipeline(), backend->passesAfter, name);
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace kiln::driver
