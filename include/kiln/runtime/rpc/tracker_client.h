// The client's side of the tracker (docs/rpc.md): asking it for a session on a server by key, and
// its status. Part of libkiln_rpc; the tracker itself is tracker.h.
#pragma once

#include <memory>
#include <string>

#include "kiln/runtime/rpc/client.h"
#include "kiln/support/json.h"

namespace kiln::runtime::rpc {

// "HOST:PORT" (as given to OPTION), or a kiln::Error saying what was expected.
struct HostPort {
  std::string host;
  int port = 0;
};
HostPort parseHostPort(const std::string& text, const std::string& option);

struct SessionRequest {
  std::string key;
  int priority = 0;       // higher is served first; equal priorities in order of asking
  Millis timeout{60000};  // waiting for a free server
  ClientOptions client;   // the session's options; its token is presented to the tracker too
};

// A session on a server with REQUEST.key, from the tracker at TRACKER. Throws RpcError naming the
// key and how long it waited when none frees within the timeout.
std::shared_ptr<Client> requestSession(const HostPort& tracker, const SessionRequest& request);

// The tracker's state: {"servers": [{key, address, state, since_s}], "queue": [{key, priority,
// waited_s, peer}], "sessions_served": N}.
Json trackerStatus(const HostPort& tracker, const std::string& token,
                   Millis timeout = Millis(10000));

}  // namespace kiln::runtime::rpc
