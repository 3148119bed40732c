// `kiln rpc server`: serve sessions to clients (launchers, kiln run --rpc, trackers, tests); the
// tracker and status commands are in rpc_tracker_command.cc.
#include <atomic>
#include <csignal>
#include <iostream>

#include "commands.h"
#include "exit_codes.h"
#include "kiln/runtime/rpc/server.h"
#include "kiln/runtime/rpc/tracker.h"
#include "kiln/support/error.h"

namespace kiln::cli {
namespace {

struct ServerArgs {
  runtime::rpc::ServerOptions options;
  std::string tokenFile;
  int idleSeconds = 3600;
};

std::atomic<runtime::rpc::Server*> gServer{nullptr};

void stopOnSignal(int) {
  if (runtime::rpc::Server* s = gServer.load()) s->stop();
}

void runServer(ServerArgs& args) {
  if (!args.tokenFile.empty()) {
    try {
      args.options.token = runtime::rpc::readTokenFile(args.tokenFile);
    } catch (const Error& e) {
      throw UsageError(strCat("--auth-token-file: ", e.what()));
    }
  }
  if (!runtime::rpc::isLoopback(args.options.host) && args.options.token.empty()) {
    throw UsageError(strCat("--host ", args.options.host,
                            " is not a loopback address: a server runs any code it is sent, so "
                            "any other address requires --auth-token-file"));
  }
  if (args.options.tracker.empty() != args.options.key.empty()) {
    throw UsageError(args.options.tracker.empty() ? "--key needs --tracker (the key names the "
                                                    "server to a tracker)"
                                                  : "--tracker needs --key (the tracker pools "
                                                    "servers by key)");
  }
  if (!args.options.tracker.empty()) {
    try {
      runtime::rpc::parseHostPort(args.options.tracker, "--tracker");
    } catch (const Error& e) {
      throw UsageError(e.what());
    }
  }
  args.options.idleTimeout = runtime::rpc::Millis(int64_t{args.idleSeconds} * 1000);
  args.options.onListening = [&](int port) {
    std::cout << "kiln rpc server listening on " << args.options.host << ":" << port << std::endl;
  };
  runtime::rpc::Server server(args.options);
  gServer.store(&server);
  std::signal(SIGTERM, stopOnSignal);
  std::signal(SIGINT, stopOnSignal);
  server.serve();
  gServer.store(nullptr);
}

}  // namespace

void addRpcCommand(CLI::App& app, const std::shared_ptr<const driver::CompileContext>& context) {
  CLI::App* rpc = app.add_subcommand("rpc", "Serve and use remote devices over kiln's RPC");
  rpc->require_subcommand(1);
  auto args = std::make_shared<ServerArgs>();
  args->options.extensions = context->extensions().files();
  CLI::App* server = rpc->add_subcommand(
      "server",
      "Serve sessions: each client gets a fresh process and a private folder, removed when the "
      "session ends. The server runs any code it is sent: it binds to loopback unless told "
      "otherwise, and any other address requires --auth-token-file");
  server->add_option("--host", args->options.host, "The address to listen on")
      ->capture_default_str();
  server->add_option("--port", args->options.port, "The port; 0 picks a free one (printed)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  server->add_option("--workdir", args->options.workdir,
                     "Where session folders go (default: $TMPDIR/kiln-rpc-PID)");
  server
      ->add_option("--auth-token-file", args->tokenFile,
                   "A file whose first line is the secret every client must present; required "
                   "for a --host other than loopback")
      ->check(CLI::ExistingFile);
  server
      ->add_option("--max-sessions", args->options.maxSessions,
                   "Exit after serving this many sessions (0: serve until SIGTERM or SIGINT)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  server
      ->add_option("--idle-timeout", args->idleSeconds,
                   "End a session that sends no request for this many seconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  server->add_option("--tracker", args->options.tracker,
                     "Register with the tracker at HOST:PORT, which hands this server to clients "
                     "asking for --key");
  server->add_option("--key", args->options.key,
                     "The key this server registers under (the kind of device it serves)");
  server->callback([args] { runServer(*args); });
  addRpcTrackerCommands(rpc);
}

}  // namespace kiln::cli
