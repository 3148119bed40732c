// Client sessions: requests, replies and the client-side stand-ins for server objects.
#include "kiln/runtime/rpc/client.h"

#include <cstring>
#include <fstream>

#include "handshake.h"
#include "kiln/runtime/c_api.h"
#include "kiln/support/file.h"

namespace kiln::runtime::rpc {
namespace {

// A server object's handle, freed on the server when the last reference goes.
struct RemoteHandle {
  RemoteHandle(std::weak_ptr<Client> c, uint64_t i) : client(std::move(c)), id(i) {}
  RemoteHandle(const RemoteHandle&) = delete;
  RemoteHandle& operator=(const RemoteHandle&) = delete;
  std::weak_ptr<Client> client;
  uint64_t id;
  ~RemoteHandle() {
    if (auto c = client.lock()) c->freeHandle(id);
  }
};

PackedFunc remoteFunction(std::shared_ptr<RemoteHandle> handle, const std::string& name);

// A module, or a tensor, that lives on the server.
class RemoteObjectNode : public ModuleNode {
 public:
  RemoteObjectNode(std::shared_ptr<RemoteHandle> handle, bool tensor, std::string typeKey)
      : handle_(std::move(handle)), tensor_(tensor), typeKey_(std::move(typeKey)) {}
  // The server object's own type key ("graph_executor"); "remote_tensor" for tensors.
  const char* typeKey() const override { return tensor_ ? "remote_tensor" : typeKey_.c_str(); }
  PackedFunc getFunction(const std::string& name) override {
    if (tensor_) return PackedFunc();
    auto client = handle_->client.lock();
    if (!client || client->closed()) {
      throw Error(strCat("function '", name, "' of a remote module: the session is closed"));
    }
    uint64_t id = handle_->id;
    Value f = client->request(
        Op::kGetFunction,
        [&](Wire& w) {
          w.u64(id);
          w.text(name);
        },
        client->ioTimeout(), strCat("function '", name, "'"));
    return f.asFunc();
  }
  uint64_t id() const { return handle_->id; }
  bool isTensor() const { return tensor_; }
  const Client* client() const { return handle_->client.lock().get(); }

 private:
  std::shared_ptr<RemoteHandle> handle_;
  bool tensor_;
  std::string typeKey_;
};

class ClientCodec : public HandleCodec {
 public:
  explicit ClientCodec(Client& client) : client_(client) {}
  void writeObject(Wire& wire, const Value& value) override {
    // checkSendable has refused everything but this session's remote objects.
    auto* node = dynamic_cast<RemoteObjectNode*>(value.asModule().node());
    KILN_CHECK(node != nullptr, "checkSendable lets only remote objects through");
    wire.u32(node->isTensor() ? kKilnRemoteTensor : kKilnModule);
    wire.u64(node->id());
    if (!node->isTensor()) wire.text(node->typeKey());
  }
  Value readObject(int32_t code, uint64_t id, const std::string& typeKey) override {
    auto handle = std::make_shared<RemoteHandle>(client_.weak_from_this(), id);
    if (code == kKilnFunction) return Value(remoteFunction(handle, "a function"));
    return Value(
        Module(std::make_shared<RemoteObjectNode>(handle, code == kKilnRemoteTensor, typeKey)));
  }

 private:
  Client& client_;
};

PackedFunc remoteFunction(std::shared_ptr<RemoteHandle> handle, const std::string& name) {
  return PackedFunc([handle, name](const Args& args) {
    auto client = handle->client.lock();
    if (!client || client->closed()) {
      throw Error(strCat("calling ", name, " on a closed session"));
    }
    checkSendable(args, *client);
    return client->request(
        Op::kCall,
        [&](Wire& w) {
          w.u64(handle->id);
          w.u32(static_cast<uint32_t>(args.size()));
          ClientCodec codec(*client);
          for (const Value& a : args) writeValue(w, a, codec);
        },
        client->callTimeout(), strCat("a call of ", name));
  });
}

const RemoteObjectNode& remoteObject(const Module& m, const char* what) {
  auto* node = m.defined() ? dynamic_cast<RemoteObjectNode*>(m.node()) : nullptr;
  if (node == nullptr) throw Error(strCat(what, ": expected a remote object of this session"));
  return *node;
}

}  // namespace

void checkSendable(const Args& args, const Client& client) {
  for (size_t i = 0; i < args.size(); ++i) {
    int32_t code = args[i].typeCode();
    if (code == kKilnFunction) {
      throw Error(strCat("argument ", i, ": functions cannot be passed to a remote call"));
    }
    if (code == kKilnModule) {
      auto* node = dynamic_cast<RemoteObjectNode*>(args[i].asModule().node());
      if (node == nullptr || node->client() != &client) {
        throw Error(strCat("argument ", i,
                           ": a module of this process cannot be passed to a "
                           "remote call; load it on the server (loadModule)"));
      }
    }
  }
}

Client::Client(Socket socket, const ClientOptions& options)
    : socket_(std::move(socket)), options_(options), peer_(socket_.peer()) {
  wire_ = std::make_unique<Wire>(socket_, options_.ioTimeout);
}

std::shared_ptr<Client> Client::connect(const std::string& host, int port,
                                        const ClientOptions& options) {
  return open(Socket::connect(host, port, options.connectTimeout), options);
}

std::shared_ptr<Client> Client::open(Socket socket, const ClientOptions& options) {
  std::shared_ptr<Client> c(new Client(std::move(socket), options));
  c->codec_ = std::make_unique<ClientCodec>(*c);
  c->handshake();
  return c;
}

Client::~Client() {
  try {
    close();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
  }
}

void Client::handshake() { serverProducer_ = sayHello(*wire_, options_.token, "session"); }

Value Client::request(Op op, const std::function<void(Wire&)>& fields, Millis replyTimeout,
                      const std::string& what) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (closed()) throw Error(strCat(what, ": the session with ", peer_, " is closed"));
  try {
    wire_->u32(static_cast<uint32_t>(op));
    fields(*wire_);
    wire_->flush();
    if (!socket_.waitReadable(replyTimeout)) {
      throw RpcError(strCat("timed out after ", static_cast<double>(replyTimeout.count()) / 1000,
                            " s waiting for the reply to ", what, " from ", peer_));
    }
    uint8_t status = wire_->readU8("a reply status");
    if (status == kFailed) throw Error(wire_->readText("an error message"));
    if (status != kOk) throw RpcError(strCat("protocol error: reply status ", int(status)));
    return readValue(*wire_, *codec_, "a reply");
  } catch (const RpcError&) {
    socket_.close();  // the stream is out of step: the session cannot go on
    throw;
  }
}

void Client::freeHandle(uint64_t id) noexcept {
  try {
    if (!closed())
      request(
          Op::kFree, [id](Wire& w) { w.u64(id); }, options_.ioTimeout, "free");
  } catch (...) {  // NOLINT(bugprone-empty-catch): freeing on a broken session has nothing to do
  }
}

Json Client::info() {
  return request(
             Op::kInfo, [](Wire&) {}, options_.ioTimeout, "info")
      .asJson();
}

void Client::upload(const std::string& localPath, const std::string& remotePath) {
  std::ifstream in(localPath, std::ios::binary);
  if (!in) throw Error(strCat("cannot read '", localPath, "' to upload it"));
  in.seekg(0, std::ios::end);
  auto size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  request(
      Op::kUpload,
      [&](Wire& w) {
        w.text(remotePath);
        w.u64(size);
        std::vector<char> chunk(size_t{1} << 20);
        for (uint64_t done = 0; done < size;) {
          auto n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), size - done));
          if (!in.read(chunk.data(), static_cast<std::streamsize>(n))) {
            throw RpcError(strCat("'", localPath, "' changed while it was being uploaded"));
          }
          w.raw(chunk.data(), n);
          done += n;
        }
      },
      options_.ioTimeout, strCat("the upload of '", remotePath, "'"));
}

void Client::uploadBytes(const std::string& data, const std::string& remotePath) {
  request(
      Op::kUpload,
      [&](Wire& w) {
        w.text(remotePath);
        w.u64(data.size());
        w.raw(data.data(), data.size());
      },
      options_.ioTimeout, strCat("the upload of '", remotePath, "'"));
}

void Client::removeFile(const std::string& remotePath) {
  request(
      Op::kRemoveFile, [&](Wire& w) { w.text(remotePath); }, options_.ioTimeout, "remove file");
}

Json Client::listFiles() {
  return request(
             Op::kListFiles, [](Wire&) {}, options_.ioTimeout, "list files")
      .asJson();
}

Module Client::loadModule(const std::string& remotePath) {
  return request(
             Op::kLoadModule, [&](Wire& w) { w.text(remotePath); }, options_.callTimeout,
             strCat("loading '", remotePath, "'"))
      .asModule();
}

Module Client::allocTensor(const Shape& shape, DataType dtype) {
  Json spec;
  Json dims = Json(Json::Array{});
  for (int64_t d : shape) dims.push(Json(d));
  spec["shape"] = std::move(dims);
  spec["dtype"] = dtype.str();
  return request(
             Op::kAllocTensor, [&](Wire& w) { writeValue(w, Value(spec), *codec_); },
             options_.ioTimeout, "a tensor allocation")
      .asModule();
}

void Client::copyToRemote(const Module& tensor, const NDArray& from) {
  uint64_t id = remoteObject(tensor, "copyToRemote").id();
  request(
      Op::kCopyToRemote,
      [&](Wire& w) {
        w.u64(id);
        writeTensor(w, from);
      },
      options_.ioTimeout, "a copy to the server");
}

NDArray Client::copyFromRemote(const Module& tensor) {
  uint64_t id = remoteObject(tensor, "copyFromRemote").id();
  return request(
             Op::kCopyFromRemote, [&](Wire& w) { w.u64(id); }, options_.ioTimeout,
             "a copy from the server")
      .asNDArray();
}

Json Client::timeEvaluator(const Module& mod, const std::string& name, const Args& args, int repeat,
                           int number) {
  if (repeat < 1 || number < 1) {
    throw Error(
        strCat("timeEvaluator: repeat ", repeat, " and number ", number, "; expected both >= 1"));
  }
  checkSendable(args, *this);
  uint64_t id = remoteObject(mod, "timeEvaluator").id();
  return request(
             Op::kTimeEvaluator,
             [&](Wire& w) {
               w.u64(id);
               w.text(name);
               w.u32(static_cast<uint32_t>(repeat));
               w.u32(static_cast<uint32_t>(number));
               w.u32(static_cast<uint32_t>(args.size()));
               for (const Value& a : args) writeValue(w, a, *codec_);
             },
             options_.callTimeout, strCat("timing '", name, "'"))
      .asJson();
}

Value Client::echo(const Value& v) {
  checkSendable({v}, *this);
  return request(
      Op::kEcho, [&](Wire& w) { writeValue(w, v, *codec_); }, options_.ioTimeout, "an echo");
}

void Client::close() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (closed()) return;
  try {
    request(
        Op::kClose, [](Wire&) {}, options_.ioTimeout, "close");
  } catch (const Error&) {
    // The server is gone already: the session is over either way.
  }
  socket_.close();
}

}  // namespace kiln::runtime::rpc
