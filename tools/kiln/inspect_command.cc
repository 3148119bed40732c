// `kiln inspect MODEL.so`: what an artifact holds, read from its file without loading it, so it
// works for artifacts built for any architecture.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "kiln/runtime/artifact.h"
#include "kiln/runtime/artifact_file.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "model_io.h"

namespace kiln::cli {
namespace {

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << std::hex << std::setw(16) << std::setfill('0') << v;
  return os.str();
}

std::string bytesText(int64_t bytes) {
  std::ostringstream os;
  os << bytes << " bytes";
  if (bytes >= (1 << 20))
    os << std::fixed << std::setprecision(1) << " (" << bytes / 1048576.0 << " MiB)";
  return os.str();
}

void printTensors(const char* title, const Json& list) {
  std::cout << "    " << title << ":\n";
  for (const Json& t : list.asArray()) {
    std::cout << "      " << t.at("name").asString() << ": " << describeType(t) << "\n";
  }
}

// Backend name -> partitions offloaded to it (empty for artifacts from before offloading).
Json offloadBackends(const runtime::ArtifactModel& m) {
  return m.signature.contains("offload_backends") ? m.signature.at("offload_backends")
                                                  : Json(Json::Object{});
}

std::string backendsText(const Json& backends) {
  std::string text;
  for (const auto& [name, count] : backends.asObject()) {
    text += strCat(text.empty() ? "" : ", ", name, " (", count.asInt(),
                   count.asInt() == 1 ? " partition)" : " partitions)");
  }
  return text.empty() ? "none (kiln's own code only)" : text;
}

Json modelJson(const runtime::ArtifactModel& m) {
  Json model;
  model["name"] = m.name;
  model["executor"] = m.executor;
  model["inputs"] = m.signature.at("inputs");
  model["outputs"] = m.signature.at("outputs");
  model["workspace_bytes"] = m.signature.at("workspace_bytes");
  model["num_params"] = m.signature.at("num_params");
  model["offload_backends"] = offloadBackends(m);
  model["params_bytes"] = static_cast<int64_t>(m.paramsSize);
  model["params_placement"] = m.externalParams ? "external" : "embedded";
  model["params_checksum"] = hex(m.paramsChecksum);
  model["metadata"] = m.metadata;
  return model;
}

void inspect(const std::string& path, bool json, bool verify) {
  if (!fileExists(path)) throw Error(strCat("artifact '", path, "' does not exist"));
  runtime::verifyArtifactFile(path, verify);
  runtime::ArtifactFile file = runtime::readArtifactFile(path);
  const runtime::Artifact& artifact = file.artifact;
  if (json) {
    Json out;
    out["artifact"] = path;
    out["format_version"] = static_cast<int64_t>(artifact.formatVersion);
    out["producer"] = artifact.producer;
    out["target"] = artifact.target;
    out["checksum"] = verify ? "verified" : "not checked";
    out["models"] = Json(Json::Array{});
    for (const runtime::ArtifactModel& m : artifact.models) out["models"].push(modelJson(m));
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
    std::cout << "  " << m.name << " (" << m.executor << " executor)\n"
              << "    weights:   " << m.signature.at("num_params").asInt() << " tensors, "
              << bytesText(static_cast<int64_t>(m.paramsSize)) << ", "
              << (m.externalParams ? "in a separate .params file" : "embedded") << ", checksum "
              << hex(m.paramsChecksum) << "\n"
              << "    workspace: " << bytesText(m.signature.at("workspace_bytes").asInt()) << "\n"
              << "    backends:  " << backendsText(offloadBackends(m)) << "\n";
    printTensors("inputs", m.signature.at("inputs"));
    printTensors("outputs", m.signature.at("outputs"));
  }
}

}  // namespace

void addInspectCommand(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto noVerify = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "inspect", "Show what a compiled artifact holds (read from the file, for any architecture)");
  cmd->add_option("artifact", *path, "The compiled model (.so)")->required();
  cmd->add_flag("--json", *json, "Print everything (including executor metadata) as JSON");
  cmd->add_flag("--no-verify", *noVerify,
                "Skip the artifact's checksum (the truncation check still runs)");
  cmd->callback([path, json, noVerify] { inspect(*path, *json, !*noVerify); });
}

}  // namespace kiln::cli
