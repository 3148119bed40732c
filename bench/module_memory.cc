// Resident memory of a loaded model: after loading the library, after the first executor and its
// first run, and for every further executor created from the same factory (which shares the
// weights, so each should cost only its working memory). Prints one JSON object.
//
//   kiln_module_memory LIB.so [--model NAME] [--executors N] [--no-verify]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "kiln/runtime/artifact.h"
#include "kiln/runtime/module.h"

namespace {

// Resident memory in bytes: anonymous (heap: copies, working memory) and file-backed (the mapped
// library: code and weights read in place, shared with the page cache and evictable).
struct Resident {
  long long anon = -1, file = -1;
};

Resident resident() {
  std::ifstream status("/proc/self/status");
  std::string line;
  Resident r;
  while (std::getline(status, line)) {
    if (line.rfind("RssAnon:", 0) == 0) r.anon = std::stoll(line.substr(8)) * 1024;
    if (line.rfind("RssFile:", 0) == 0) r.file = std::stoll(line.substr(8)) * 1024;
  }
  return r;
}

std::string json(const Resident& r) {
  return "{\"anon\": " + std::to_string(r.anon) + ", \"file\": " + std::to_string(r.file) + "}";
}

// Inputs of the executor filled with zeros, so run() touches what a real run touches.
void runOnce(const kiln::runtime::Module& ex) {
  kiln::Json inputs = ex["get_input_info"]().asJson();
  for (size_t i = 0; i < inputs.size(); ++i) {
    kiln::runtime::Shape shape;
    for (const kiln::Json& d : inputs[i].at("shape").asArray()) shape.push_back(d.asInt());
    auto dtype = kiln::runtime::DataType::parse(inputs[i].at("dtype").asString());
    kiln::runtime::NDArray a = kiln::runtime::NDArray::empty(shape, dtype);
    std::memset(a.data(), 0, a.nbytes());
    ex["set_input"](static_cast<int64_t>(i), a);
  }
  ex["run"]();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s LIB.so [--model NAME] [--executors N] [--no-verify]\n",
                 argv[0]);
    return 2;
  }
  std::string path = argv[1], model = "default";
  int executors = 4;
  bool verify = true;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-verify") == 0) verify = false;
  }
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--model") == 0) model = argv[i + 1];
    if (std::strcmp(argv[i], "--executors") == 0) executors = std::atoi(argv[i + 1]);
  }
  try {
    kiln::runtime::ArtifactFile file = kiln::runtime::readArtifactFile(path);
    long long paramsBytes = 0, workspaceBytes = 0;
    for (const auto& m : file.artifact.models) {
      if (m.name != model) continue;
      paramsBytes = static_cast<long long>(m.paramsSize);
      workspaceBytes = m.signature.at("workspace_bytes").asInt();
    }
    file = {};
    Resident start = resident();
    kiln::runtime::Module lib =
        kiln::runtime::loadModule(path, {.verifyChecksum = verify, .extensions = {}});
    kiln::runtime::Module factory = lib["get_factory"](model).asModule();
    Resident loaded = resident();
    std::vector<kiln::runtime::Module> all;
    std::vector<Resident> after;
    for (int e = 0; e < executors; ++e) {
      all.push_back(factory["create"](kiln::runtime::Device::cpu()).asModule());
      runOnce(all.back());
      after.push_back(resident());
    }
    std::printf(
        "{\"params_bytes\": %lld, \"workspace_bytes\": %lld, \"start\": %s, "
        "\"loaded\": %s, \"after_executor\": [",
        paramsBytes, workspaceBytes, json(start).c_str(), json(loaded).c_str());
    for (size_t e = 0; e < after.size(); ++e)
      std::printf("%s%s", e ? ", " : "", json(after[e]).c_str());
    std::printf("]}\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
