// The server's side of one session once its handshake was accepted: what the server's session
// processes run.
#pragma once

#include <string>

#include "kiln/runtime/rpc/server.h"

namespace kiln::runtime::rpc {

// The purposes a server serves (refusalOf's WANTED).
inline constexpr const char* kSessionPurposes = "|session|";

// Answers the client's accepted handshake, then serves its requests on SOCKET with its files in
// SESSION_DIR (created, and removed at the end) until it closes the session, goes idle or breaks
// the protocol (an RpcError).
void serveAcceptedSession(Socket socket, const std::string& sessionDir,
                          const ServerOptions& options);

}  // namespace kiln::runtime::rpc
