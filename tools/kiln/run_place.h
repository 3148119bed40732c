// Where `kiln run` runs a model: in this process on the local CPU, or in a session on a device
// (--device through a launcher, --rpc on a server, --rpc-tracker on a server of a key). Either way
// the run sees a loaded library and the same executor interface; timings are taken where the
// model runs, so a remote run's figures hold no network time.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime/module.h"

namespace kiln::remote {
class Launcher;
class Session;
}  // namespace kiln::remote

namespace kiln::cli {

struct PlaceOptions {
  std::string device;                   // --device: local, qemu-aarch64, ssh:USER@HOST[:PORT]
  std::string rpc;                      // --rpc HOST:PORT
  std::string tracker, key;             // --rpc-tracker HOST:PORT, --rpc-key KEY
  std::string tokenFile;                // --auth-token-file
  int priority = 0;                     // --rpc-priority
  int waitSeconds = 600;                // --rpc-wait: for a free server of the key
  std::vector<std::string> sshOptions;  // --ssh-option KEY=VALUE
  // The loaded extensions, where a local run finds the runtimes of offloaded partitions (a
  // remote server loads its own: kiln rpc server --extension).
  std::vector<std::string> extensions;
  bool any() const { return !device.empty() || !rpc.empty() || !tracker.empty(); }
};

// --device, --rpc, --rpc-tracker, --rpc-key and the options that go with them.
void addPlaceOptions(CLI::App* cmd, PlaceOptions& options);

// --model-name, --params, --threads and --no-verify: which model of a library runs, with which
// weights, on how many of this machine's threads.
void addModelOptions(CLI::App* cmd, std::string& modelName, std::string& params, int& threads,
                     bool& noVerify);
// Sizes this machine's pool to THREADS (0: leave it); a UsageError when PLACE is a device.
void applyThreads(int threads, const PlaceOptions& place);

class RunPlace {
 public:
  // Loads ARTIFACT where OPTIONS say (uploading it to a device first) and, when PARAMS is set,
  // makes the weights file available there too. VERIFY checks the artifact's checksum.
  RunPlace(const PlaceOptions& options, const std::string& artifact, const std::string& params,
           bool verify);
  ~RunPlace();
  RunPlace(const RunPlace&) = delete;
  RunPlace& operator=(const RunPlace&) = delete;

  const runtime::Module& lib() const { return lib_; }
  // The --params file as the place sees it.
  const std::string& params() const { return params_; }
  // An executor (the debug executor when DEBUG) of model MODEL_NAME, with the --params weights
  // when given; a UsageError listing the library's models when it has none of that name.
  runtime::Module createExecutor(const std::string& modelName, bool debug) const;
  // REPEAT measurements of NUMBER calls of EXEC["run"] each, the mean of each in milliseconds,
  // measured where the model runs.
  std::vector<double> time(const runtime::Module& exec, int repeat, int number);
  // "the local CPU", "qemu-aarch64 (aarch64, 2 cores)", for messages.
  const std::string& description() const { return description_; }

 private:
  std::unique_ptr<remote::Launcher> launcher_;
  std::unique_ptr<remote::Session> session_;
  runtime::Module lib_;
  std::string artifact_, params_, description_;
};

}  // namespace kiln::cli
