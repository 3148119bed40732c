// Opening the place a model runs: a local load, or a session on a device with the artifact
// uploaded.
#include "run_place.h"

#include <chrono>

#include "exit_codes.h"
#include "kiln/remote/launcher.h"
#include "kiln/remote/session.h"
#include "kiln/runtime/rpc/server.h"
#include "kiln/runtime/rpc/tracker_client.h"
#include "kiln/runtime/thread_pool.h"
#include "kiln/runtime/time_evaluator.h"

namespace kiln::cli {
namespace {

void checkOptions(const PlaceOptions& o) {
  int places = (o.device.empty() ? 0 : 1) + (o.rpc.empty() ? 0 : 1) + (o.tracker.empty() ? 0 : 1);
  if (places > 1) {
    throw UsageError("--device, --rpc and --rpc-tracker each name where the model runs; give one");
  }
  if (o.tracker.empty() != o.key.empty()) {
    throw UsageError(o.tracker.empty() ? "--rpc-key needs --rpc-tracker"
                                       : "--rpc-tracker needs --rpc-key (the kind of device)");
  }
  if (!o.sshOptions.empty() && o.device.rfind("ssh:", 0) != 0) {
    throw UsageError("--ssh-option applies to --device ssh:USER@HOST only");
  }
  if (!o.tokenFile.empty() && o.rpc.empty() && o.tracker.empty()) {
    throw UsageError("--auth-token-file applies to --rpc and --rpc-tracker only");
  }
}

runtime::rpc::HostPort hostPort(const std::string& text, const char* option) {
  try {
    return runtime::rpc::parseHostPort(text, option);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

}  // namespace

void addPlaceOptions(CLI::App* cmd, PlaceOptions& o) {
  cmd->add_option("--device", o.device,
                  "Run on a device through a fresh RPC server: local (this machine), "
                  "qemu-aarch64 (an emulated aarch64 board), ssh:USER@HOST[:PORT] (a board "
                  "reached over ssh)");
  cmd->add_option("--rpc", o.rpc, "Run on the kiln RPC server at HOST:PORT");
  cmd->add_option("--rpc-tracker", o.tracker,
                  "Run on a server of --rpc-key from the tracker at HOST:PORT");
  cmd->add_option("--rpc-key", o.key, "The kind of device to ask the tracker for");
  cmd->add_option("--rpc-priority", o.priority,
                  "Priority in the tracker's queue (higher is served first)")
      ->capture_default_str();
  cmd->add_option("--rpc-wait", o.waitSeconds,
                  "Seconds to wait for a free server of --rpc-key before giving up")
      ->check(CLI::Range(1, 86400).description("1 to 86400"))
      ->capture_default_str();
  cmd->add_option("--auth-token-file", o.tokenFile,
                  "The shared secret of the --rpc server or --rpc-tracker pool")
      ->check(CLI::ExistingFile);
  cmd->add_option("--ssh-option", o.sshOptions,
                  "An ssh option KEY=VALUE for --device ssh:... (repeatable; e.g. "
                  "IdentityFile=~/.ssh/board)");
}

void addModelOptions(CLI::App* cmd, std::string& modelName, std::string& params, int& threads,
                     bool& noVerify) {
  cmd->add_option("--model-name", modelName, "Which model of the library to run")
      ->capture_default_str();
  cmd->add_option("--params", params,
                  "Load the model's weights from FILE (written by kiln compile --params "
                  "external); refused unless it is the file compiled with the model");
  cmd->add_option("--threads", threads,
                  strCat("Worker threads, 1 to ", runtime::ThreadPool::kMaxThreads,
                         " (default: KILN_NUM_THREADS, else all cores)"))
      ->check(CLI::Range(1, runtime::ThreadPool::kMaxThreads)
                  .description(strCat("1 to ", runtime::ThreadPool::kMaxThreads)));
  cmd->add_flag("--no-verify", noVerify,
                "Skip the artifact's checksum (the truncation check still runs)");
}

void applyThreads(int threads, const PlaceOptions& place) {
  if (threads > 0 && place.any()) {
    throw UsageError(
        "--threads sets this machine's worker threads; on a device, set KILN_NUM_THREADS in the "
        "server's environment");
  }
  if (threads > 0) runtime::ThreadPool::global().setNumThreads(threads);
}

RunPlace::RunPlace(const PlaceOptions& o, const std::string& artifact, const std::string& params,
                   bool verify)
    : artifact_(artifact) {
  checkOptions(o);
  if (!o.any()) {
    lib_ = runtime::loadModule(artifact, {.verifyChecksum = verify, .extensions = o.extensions});
    params_ = params;
    description_ = "the local CPU";
    return;
  }
  if (!verify) throw UsageError("--no-verify applies to local runs only");
  runtime::rpc::ClientOptions client;
  if (!o.tokenFile.empty()) client.token = runtime::rpc::readTokenFile(o.tokenFile);
  std::string name;
  if (!o.device.empty()) {
    remote::LauncherOptions lo;
    lo.client = client;
    lo.sshOptions = o.sshOptions;
    try {
      launcher_ = remote::makeLauncher(o.device, lo);  // only checks the name: nothing starts
    } catch (const Error& e) {
      throw UsageError(strCat("--device: ", e.what()));
    }
    session_ = launcher_->createSession();
    name = o.device;
  } else if (!o.rpc.empty()) {
    runtime::rpc::HostPort at = hostPort(o.rpc, "--rpc");
    session_ = std::make_unique<remote::Session>(
        runtime::rpc::Client::connect(at.host, at.port, client), "rpc " + o.rpc);
    name = o.rpc;
  } else {
    runtime::rpc::SessionRequest request;
    request.key = o.key;
    request.priority = o.priority;
    request.timeout = std::chrono::seconds(o.waitSeconds);
    request.client = client;
    auto session = runtime::rpc::requestSession(hostPort(o.tracker, "--rpc-tracker"), request);
    name = strCat(o.key, " at ", session->peer());
    session_ = std::make_unique<remote::Session>(std::move(session), o.key);
  }
  Json info = session_->info();
  description_ =
      strCat(name, " (", info.at("arch").asString(), ", ", info.at("cores").asInt(), " cores)");
  lib_ = session_->loadModule(session_->upload(artifact, "model.so"));
  if (!params.empty()) {
    params_ =
        strCat(info.at("session_dir").asString(), "/", session_->upload(params, "model.params"));
  }
}

RunPlace::~RunPlace() {
  lib_ = runtime::Module();  // remote objects go before their session, the session before its
  session_.reset();          // launcher stops its server
  launcher_.reset();
}

runtime::Module RunPlace::createExecutor(const std::string& modelName, bool debug) const {
  Json models = lib_["list_models"]().asJson();
  std::string names;
  for (const Json& m : models.asArray()) {
    if (m.asString() == modelName) {
      runtime::Module factory = lib_["get_factory"](modelName).asModule();
      if (!params_.empty()) factory = factory["load_params_file"](params_).asModule();
      return factory[debug ? "debug_create" : "create"](runtime::Device::cpu()).asModule();
    }
    names += (names.empty() ? "" : ", ") + m.asString();
  }
  throw UsageError(strCat("--model-name '", modelName, "': '", artifact_,
                          "' has no model of that name; it has: ", names));
}

std::vector<double> RunPlace::time(const runtime::Module& exec, int repeat, int number) {
  if (session_) return session_->timeEvaluator(exec, "run", {}, repeat, number);
  return runtime::timeEvaluate(exec["run"], {}, repeat, number);
}

}  // namespace kiln::cli
