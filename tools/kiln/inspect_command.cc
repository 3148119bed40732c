// `kiln inspect MODEL.so`: what an artifact holds, without running it.
#include <iostream>

#include "commands.h"
#include "kiln/runtime/artifact.h"
#include "kiln/runtime/artifact_file.h"
#include "kiln/runtime/shared_library.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "model_io.h"

namespace kiln::cli {
namespace {

void printTensors(const char* title, const Json& metadata, const char* key) {
  std::cout << "    " << title << ":\n";
  for (const Json& id : metadata.at(key).asArray()) {
    const Json& t = metadata.at("tensors")[static_cast<size_t>(id.asInt())];
    std::cout << "      " << t.at("name").asString() << ": " << t.at("dtype").asString()
              << runtime::shapeStr(shapeFromJson(t.at("shape"))) << "\n";
  }
}

void inspect(const std::string& path, bool json, bool verify) {
  if (!fileExists(path)) throw Error(strCat("artifact '", path, "' does not exist"));
  runtime::verifyArtifactFile(path, verify);
  runtime::SharedLibrary lib(path);
  runtime::Artifact artifact = runtime::readArtifact(lib);
  if (json) {
    Json out;
    out["format_version"] = static_cast<int64_t>(artifact.formatVersion);
    out["producer"] = artifact.producer;
    out["target"] = artifact.target;
    out["checksum"] = verify ? "verified" : "not checked";
    for (const runtime::ArtifactModel& m : artifact.models) {
      Json model;
      model["name"] = m.name;
      model["executor"] = m.executor;
      model["metadata"] = m.metadata;
      model["params_bytes"] = static_cast<int64_t>(m.params.size());
      out["models"].push(std::move(model));
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << "artifact:        " << path << "\n"
            << "format version:  " << artifact.formatVersion << "\n"
            << "producer:        " << artifact.producer << "\n"
            << "target:          " << artifact.target.dump() << "\n"
            << "checksum:        " << (verify ? "verified" : "not checked (--no-verify)") << "\n"
            << "models:\n";
  for (const runtime::ArtifactModel& m : artifact.models) {
    std::cout << "  " << m.name << " (" << m.executor << " executor, "
              << m.metadata.at("kernels").size() << " kernels, " << m.metadata.at("params").size()
              << " weights, " << m.params.size() << " bytes of weights)\n";
    printTensors("inputs", m.metadata, "inputs");
    printTensors("outputs", m.metadata, "outputs");
  }
}

}  // namespace

void addInspectCommand(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto noVerify = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("inspect", "Show what a compiled artifact holds");
  cmd->add_option("artifact", *path, "The compiled model (.so)")->required();
  cmd->add_flag("--json", *json, "Print everything (including executor metadata) as JSON");
  cmd->add_flag("--no-verify", *noVerify,
                "Skip the artifact's checksum (the truncation check still runs)");
  cmd->callback([path, json, noVerify] { inspect(*path, *json, !*noVerify); });
}

}  // namespace kiln::cli
