// The client side of a session with an RPC server: files, modules, functions and tensors on the
// server, used through the same Module and PackedFunc interface as local ones. A remote module's
// functions send a request and wait for the reply; objects handed back stay on the server and are
// freed there when their last client-side reference goes. One Client serves one thread at a time
// (calls are serialised).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "kiln/runtime/module.h"
#include "kiln/runtime/rpc/protocol.h"
#include "kiln/runtime/rpc/socket.h"
#include "kiln/runtime/rpc/wire.h"

namespace kiln::runtime::rpc {

struct ClientOptions {
  Millis connectTimeout{10000};
  Millis ioTimeout{60000};     // sending a request, or reading a reply once it has started
  Millis callTimeout{600000};  // waiting for a reply to start (a long run())
  std::string token;           // the server's shared secret, if it has one
};

class Client : public std::enable_shared_from_this<Client> {
 public:
  // Connects and shakes hands; throws RpcError naming the server and both protocol versions
  // when they differ, or the server's reason when it refuses.
  static std::shared_ptr<Client> connect(const std::string& host, int port,
                                         const ClientOptions& options = {});
  // The same over a connection made otherwise (a tunnel's socket).
  static std::shared_ptr<Client> open(Socket socket, const ClientOptions& options = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const std::string& peer() const { return peer_; }
  std::string serverProducer() const { return serverProducer_; }
  bool closed() const { return !socket_.valid(); }

  Json info();
  // Copies the local file LOCAL_PATH to REMOTE_PATH (relative to the session folder), streamed.
  void upload(const std::string& localPath, const std::string& remotePath);
  void uploadBytes(const std::string& data, const std::string& remotePath);
  void removeFile(const std::string& remotePath);
  Json listFiles();
  // A module loaded on the server from an uploaded artifact.
  Module loadModule(const std::string& remotePath);
  // A tensor allocated on the server (a Module of type "remote_tensor" that remote calls accept
  // where a tensor is expected).
  Module allocTensor(const Shape& shape, DataType dtype);
  void copyToRemote(const Module& tensor, const NDArray& from);
  NDArray copyFromRemote(const Module& tensor);
  // Times MOD[NAME](ARGS) on the server: one untimed call, then REPEAT measurements of NUMBER
  // calls each; returns {"times_ms": [...]}.
  Json timeEvaluator(const Module& mod, const std::string& name, const Args& args, int repeat,
                     int number);
  Value echo(const Value& v);
  // Ends the session (the server removes its folder); idempotent. The destructor calls it.
  void close();

  // Used by remote modules and functions.
  Value request(Op op, const std::function<void(Wire&)>& fields, Millis replyTimeout,
                const std::string& what);
  void freeHandle(uint64_t id) noexcept;
  Millis callTimeout() const { return options_.callTimeout; }
  Millis ioTimeout() const { return options_.ioTimeout; }

 private:
  Client(Socket socket, const ClientOptions& options);
  void handshake();

  Socket socket_;
  ClientOptions options_;
  std::unique_ptr<Wire> wire_;
  std::unique_ptr<HandleCodec> codec_;
  std::string peer_, serverProducer_;
  std::recursive_mutex mutex_;
};

// ARGS checked for what a remote call can carry: local modules and functions cannot be sent.
void checkSendable(const Args& args, const Client& client);

}  // namespace kiln::runtime::rpc
