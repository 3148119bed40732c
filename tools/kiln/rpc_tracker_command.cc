// `kiln rpc tracker` (pool servers by key and hand them to clients) and `kiln rpc status` (what a
// tracker holds: servers by key, their state, the queue).
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "exit_codes.h"
#include "kiln/runtime/rpc/server.h"
#include "kiln/runtime/rpc/tracker.h"

namespace kiln::cli {
namespace {

struct TrackerArgs {
  runtime::rpc::TrackerOptions options;
  std::string tokenFile;
};

struct StatusArgs {
  std::string tracker, tokenFile;
  bool json = false;
};

std::atomic<runtime::rpc::Tracker*> gTracker{nullptr};

std::string readToken(const std::string& file) {
  if (file.empty()) return "";
  try {
    return runtime::rpc::readTokenFile(file);
  } catch (const Error& e) {
    throw UsageError(strCat("--auth-token-file: ", e.what()));
  }
}

void runTracker(TrackerArgs& args) {
  args.options.token = readToken(args.tokenFile);
  if (!runtime::rpc::isLoopback(args.options.host) && args.options.token.empty()) {
    throw UsageError(strCat("--host ", args.options.host,
                            " is not a loopback address: a tracker hands out servers that run "
                            "any code they are sent, so any other address requires "
                            "--auth-token-file"));
  }
  args.options.onListening = [&](int port) {
    std::cout << "kiln rpc tracker listening on " << args.options.host << ":" << port << std::endl;
  };
  runtime::rpc::Tracker tracker(args.options);
  gTracker.store(&tracker);
  auto stop = [](int) {
    if (runtime::rpc::Tracker* t = gTracker.load()) t->stop();
  };
  std::signal(SIGTERM, stop);
  std::signal(SIGINT, stop);
  tracker.serve();
  gTracker.store(nullptr);
}

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", v);
  return buf;
}

void printStatus(const Json& status, const std::string& tracker) {
  const Json& servers = status.at("servers");
  const Json& queue = status.at("queue");
  std::printf("tracker %s: %zu server(s), %zu request(s) waiting, %lld session(s) served\n",
              tracker.c_str(), servers.size(), queue.size(),
              static_cast<long long>(status.at("sessions_served").asInt()));
  if (servers.size() > 0) std::printf("%-20s %-24s %-9s %s\n", "key", "address", "state", "for");
  for (const Json& s : servers.asArray()) {
    std::printf("%-20s %-24s %-9s %s\n", s.at("key").asString().c_str(),
                s.at("address").asString().c_str(), s.at("state").asString().c_str(),
                fixed(s.at("since_s").asDouble()).c_str());
  }
  if (queue.size() > 0) {
    std::printf("queue (served in this order):\n%-20s %-9s %-10s %s\n", "key", "priority", "waited",
                "from");
  }
  for (const Json& q : queue.asArray()) {
    std::printf("%-20s %-9lld %-10s %s\n", q.at("key").asString().c_str(),
                static_cast<long long>(q.at("priority").asInt()),
                fixed(q.at("waited_s").asDouble()).c_str(), q.at("peer").asString().c_str());
  }
}

void runStatus(const StatusArgs& args) {
  runtime::rpc::HostPort at;
  try {
    at = runtime::rpc::parseHostPort(args.tracker, "--tracker");
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  Json status = runtime::rpc::trackerStatus(at, readToken(args.tokenFile));
  if (args.json) {
    std::cout << status.dump() << "\n";
  } else {
    printStatus(status, args.tracker);
  }
}

}  // namespace

void addRpcTrackerCommands(CLI::App* rpc) {
  auto targs = std::make_shared<TrackerArgs>();
  CLI::App* tracker = rpc->add_subcommand(
      "tracker",
      "Pool RPC servers by key: servers register with --tracker/--key, clients ask for a session "
      "by key (kiln run --rpc-tracker --rpc-key) and wait, by priority, for a free one");
  tracker->add_option("--host", targs->options.host, "The address to listen on")
      ->capture_default_str();
  tracker->add_option("--port", targs->options.port, "The port; 0 picks a free one (printed)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  tracker
      ->add_option("--auth-token-file", targs->tokenFile,
                   "A file whose first line is the secret every server and client must present; "
                   "required for a --host other than loopback")
      ->check(CLI::ExistingFile);
  tracker->callback([targs] { runTracker(*targs); });

  auto sargs = std::make_shared<StatusArgs>();
  CLI::App* status = rpc->add_subcommand(
      "status", "Show a tracker's servers by key, their state, and the clients waiting for one");
  status->add_option("--tracker", sargs->tracker, "The tracker's HOST:PORT")->required();
  status
      ->add_option("--auth-token-file", sargs->tokenFile,
                   "The tracker's shared secret, if it has one")
      ->check(CLI::ExistingFile);
  status->add_flag("--json", sargs->json, "Print the status as one JSON object");
  status->callback([sargs] { runStatus(*sargs); });
}

}  // namespace kiln::cli
