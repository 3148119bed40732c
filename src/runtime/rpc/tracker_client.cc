// Asking a tracker: for a session on a server of a key, and for its status.
#include "kiln/runtime/rpc/tracker_client.h"

#include <algorithm>
#include <cstdlib>

#include "handshake.h"
#include "json_message.h"
#include "kiln/runtime/rpc/tracker_messages.h"

namespace kiln::runtime::rpc {
namespace {

using Clock = std::chrono::steady_clock;

double secondsOf(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

HostPort parseHostPort(const std::string& text, const std::string& option) {
  size_t colon = text.rfind(':');
  HostPort out;
  if (colon != std::string::npos && colon > 0) {
    out.host = text.substr(0, colon);
    const std::string digits = text.substr(colon + 1);
    char* end = nullptr;
    long port = std::strtol(digits.c_str(), &end, 10);
    if (!digits.empty() && *end == '\0' && port > 0 && port <= 65535) {
      out.port = static_cast<int>(port);
      return out;
    }
  }
  throw Error(strCat(option, " '", text, "': expected HOST:PORT with a port from 1 to 65535"));
}

std::shared_ptr<Client> requestSession(const HostPort& tracker, const SessionRequest& request) {
  if (std::string problem = trackerKeyProblem(request.key); !problem.empty()) {
    throw Error(strCat("a session request: ", problem));
  }
  auto start = Clock::now();
  auto deadline = start + request.timeout;
  const ClientOptions& o = request.client;
  for (;;) {
    auto left = std::max(Millis(0), std::chrono::duration_cast<Millis>(deadline - Clock::now()));
    Socket socket = Socket::connect(tracker.host, tracker.port, o.connectTimeout);
    Wire wire(socket, o.ioTimeout);
    sayHello(wire, o.token, "request");
    SessionAsk ask{request.key, request.priority, left,
                   std::chrono::duration_cast<Millis>(Clock::now() - start)};
    sendJson(wire, toJson(ask));
    if (!socket.waitReadable(left + o.ioTimeout)) {
      throw RpcError(strCat("the tracker at ", socket.peer(), " did not answer a request for key '",
                            request.key, "' within ", secondsOf(left + o.ioTimeout), " s"));
    }
    Json answer = readJson(wire, "the tracker's answer");
    if (answer.contains("error")) throw RpcError(answer.at("error").asString());
    std::string host = answer.at("host").asString();
    auto port = static_cast<int>(answer.at("port").asInt());
    // Ask again while time is left when the server offered is gone (it died and the tracker has
    // not noticed yet: it stays reserved, so the next answer is another server) or busy (another
    // client reached it without the tracker). Any other refusal is final.
    std::string failure;
    Socket server;
    try {
      server = Socket::connect(host, port, o.connectTimeout);
    } catch (const RpcError& gone) {
      failure = gone.what();
    }
    if (server.valid()) {
      try {
        return Client::open(std::move(server), o);
      } catch (const ServerBusy& busy) {
        failure = busy.what();
      }
    }
    if (Clock::now() >= deadline) {
      throw RpcError(strCat("no server with key '", request.key, "' from the tracker at ",
                            tracker.host, ":", tracker.port, " could be used within ",
                            secondsOf(Clock::now() - start),
                            " s; the last one offered: ", failure));
    }
  }
}

Json trackerStatus(const HostPort& tracker, const std::string& token, Millis timeout) {
  Socket socket = Socket::connect(tracker.host, tracker.port, timeout);
  Wire wire(socket, timeout);
  sayHello(wire, token, "status");
  return readJson(wire, "the tracker's status");
}

}  // namespace kiln::runtime::rpc
