// kiln-rpc-server: the RPC server on its own, linked with the runtime only, so it builds for any
// device the runtime builds for (launchers copy it there). `kiln rpc server` is the same server
// behind the full command line.
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "kiln/runtime/rpc/server.h"

namespace {

std::atomic<kiln::runtime::rpc::Server*> gServer{nullptr};

constexpr const char* kUsage =
    "usage: kiln-rpc-server [--host ADDR] [--port N] [--workdir DIR] [--auth-token-file FILE]\n"
    "                       [--max-sessions N] [--idle-timeout SECONDS]\n"
    "                       [--tracker HOST:PORT --key KEY] [--stop-on-input-end] [--quiet]\n"
    "Serves kiln RPC sessions, each in a fresh process with a private folder. Binds to 127.0.0.1\n"
    "unless --host says otherwise; any other address requires --auth-token-file. Prints\n"
    "'kiln rpc server listening on HOST:PORT' first (--port 0, the default, picks a free port).\n"
    "With --tracker, registers with that tracker under KEY and tells it when sessions start\n"
    "and end. With --stop-on-input-end, exits when its standard input ends (a launcher that\n"
    "started it over ssh went away). --quiet logs failures only.\n";

// A mistake in the command line: reported with the usage text and exit status 2, like `kiln`.
class UsageError : public kiln::Error {
 public:
  using kiln::Error::Error;
};

// A whole decimal number in [LO, HI], or a usage error naming the option.
long numberArg(const std::string& option, const char* text, long lo, long hi) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
    throw UsageError(
        kiln::strCat(option, " '", text, "': expected a whole number from ", lo, " to ", hi));
  }
  return v;
}

int run(int argc, char** argv) {
  kiln::runtime::rpc::ServerOptions options;
  std::string tokenFile;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "--stop-on-input-end" || arg == "--quiet") {
      (arg == "--quiet" ? options.quiet : options.stopOnInputEnd) = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::cerr << "error: "
                << (arg.rfind("--", 0) == 0 ? arg + " needs a value"
                                            : "unknown argument '" + arg + "'")
                << "\n"
                << kUsage;
      return 2;
    }
    const char* value = argv[++i];
    if (arg == "--host") {
      options.host = value;
    } else if (arg == "--port") {
      options.port = static_cast<int>(numberArg(arg, value, 0, 65535));
    } else if (arg == "--workdir") {
      options.workdir = value;
    } else if (arg == "--tracker") {
      options.tracker = value;
    } else if (arg == "--key") {
      options.key = value;
    } else if (arg == "--auth-token-file") {
      tokenFile = value;
    } else if (arg == "--max-sessions") {
      options.maxSessions = static_cast<int>(numberArg(arg, value, 0, 1 << 30));
    } else if (arg == "--idle-timeout") {
      options.idleTimeout = kiln::runtime::rpc::Millis(numberArg(arg, value, 1, 1 << 30) * 1000);
    } else {
      std::cerr << "error: unknown option '" << arg << "'\n" << kUsage;
      return 2;
    }
  }
  if (!tokenFile.empty()) options.token = kiln::runtime::rpc::readTokenFile(tokenFile);
  options.onListening = [&](int port) {
    std::cout << "kiln rpc server listening on " << options.host << ":" << port << std::endl;
  };
  kiln::runtime::rpc::Server server(options);
  gServer.store(&server);
  std::signal(SIGTERM, [](int) { gServer.load()->stop(); });
  std::signal(SIGINT, [](int) { gServer.load()->stop(); });
  server.serve();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "error: %s\n%s", e.what(), kUsage);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 4;
  }
}
