// One session, server side: the handshake, then each request answered in order. Objects the
// client may refer to (modules, functions, tensors) live in the session's handle table.
#include "session_handler.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "handshake.h"
#include "kiln/runtime/artifact.h"
#include "kiln/runtime/c_api.h"
#include "kiln/runtime/host_cpu.h"
#include "kiln/runtime/rpc/protocol.h"
#include "kiln/runtime/rpc/server.h"
#include "kiln/runtime/rpc/wire.h"
#include "kiln/runtime/time_evaluator.h"
#include "session_files.h"

namespace kiln::runtime::rpc {
namespace {

// Server-side objects by handle; what a reply hands out is registered here.
class HandleTable : public HandleCodec {
 public:
  uint64_t add(Value v) {
    objects_[next_] = std::move(v);
    return next_++;
  }
  const Value& get(uint64_t id, const char* what) const {
    auto it = objects_.find(id);
    if (it == objects_.end())
      throw Error(strCat("no ", what, " with handle ", id, " in this session"));
    return it->second;
  }
  // A handle never issued, or freed already, is an error: the client lost track of its objects.
  void free(uint64_t id) {
    if (objects_.erase(id) == 0) {
      throw Error(
          strCat("cannot free handle ", id, ": ",
                 id == 0 || id >= next_ ? "this session never issued it" : "it was freed already"));
    }
  }

  void writeObject(Wire& wire, const Value& value) override {
    wire.u32(static_cast<uint32_t>(value.typeCode()));
    wire.u64(add(value));
    if (value.typeCode() == kKilnModule) wire.text(value.asModule().typeKey());
  }
  // Never throws mid-message: a bad handle is remembered and raised by checkArguments() once
  // the whole request has been read, so the stream stays in step.
  Value readObject(int32_t code, uint64_t id, const std::string& /*typeKey*/) override {
    auto it = objects_.find(id);
    int32_t want = code == kKilnRemoteTensor ? kKilnTensor : code;
    if (it == objects_.end() || it->second.typeCode() != want) {
      if (badArgument_.empty()) {
        badArgument_ = strCat(
            "handle ", id,
            it == objects_.end() ? " does not exist in this session" : " is not of type code ",
            it == objects_.end() ? "" : std::to_string(code));
      }
      return Value();
    }
    return it->second;
  }
  void checkArguments() {
    if (badArgument_.empty()) return;
    std::string message = std::move(badArgument_);
    badArgument_.clear();
    throw Error(message);
  }
  // A tensor reply registered as a remote tensor.
  void writeRemoteTensor(Wire& wire, NDArray a) {
    wire.u32(kKilnRemoteTensor);
    wire.u64(add(Value(std::move(a))));
  }

 private:
  std::map<uint64_t, Value> objects_;
  uint64_t next_ = 1;
  std::string badArgument_;
};

// This process's peak resident memory (VmHWM), or -1 where /proc does not say.
int64_t peakMemoryBytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return -1;
}

// The most one value may hold by default: this machine's memory, at most kMaxTensorBytes.
uint64_t memoryLimit() {
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return kMaxTensorBytes;
  return std::min(kMaxTensorBytes, static_cast<uint64_t>(pages) * static_cast<uint64_t>(page));
}

class SessionHandler {
 public:
  SessionHandler(Socket& socket, const std::string& dir, const ServerOptions& options)
      : wire_(socket, options.ioTimeout), files_(dir), extensions_(options.extensions) {
    wire_.setLimits({options.maxTensorBytes != 0 ? options.maxTensorBytes : memoryLimit()});
  }

  // False when the client closed the session.
  bool handle(Op op) {
    switch (op) {
      case Op::kClose:
        replyOk(Value());
        return false;
      case Op::kInfo:
        replyOk(Value(info()));
        return true;
      case Op::kUpload:
        upload();
        return true;
      case Op::kRemoveFile: {
        std::string path = files_.resolve(wire_.readText("a path"), false);
        if (std::remove(path.c_str()) != 0) throw Error(strCat("cannot remove '", path, "'"));
        replyOk(Value());
        return true;
      }
      case Op::kListFiles: {
        Json list = Json(Json::Array{});
        for (const std::string& f : files_.list()) list.push(Json(f));
        replyOk(Value(list));
        return true;
      }
      case Op::kLoadModule: {
        // A library uploaded again under a path loaded before loads as the new file.
        std::string path = files_.resolve(wire_.readText("a module path"), false);
        Module lib = loadModule(path, {.extensions = extensions_});
        replyOk(Value(lib));
        return true;
      }
      case Op::kGetFunction: {
        uint64_t id = wire_.readU64("a module handle");
        std::string name = wire_.readText("a function name");
        replyOk(Value(table_.get(id, "module").asModule()[name]));
        return true;
      }
      case Op::kCall: {
        uint64_t id = wire_.readU64("a function handle");
        Args args = readArgs();
        replyOk(table_.get(id, "function").asFunc().callPacked(args));
        return true;
      }
      case Op::kFree:
        table_.free(wire_.readU64("a handle"));
        replyOk(Value());
        return true;
      case Op::kAllocTensor:
        allocTensor();
        return true;
      case Op::kCopyToRemote: {
        uint64_t id = wire_.readU64("a tensor handle");
        NDArray src = readTensor(wire_, "a tensor");
        NDArray dst = table_.get(id, "tensor").asNDArray();
        dst.copyFrom(src);
        replyOk(Value());
        return true;
      }
      case Op::kCopyFromRemote:
        replyOk(table_.get(wire_.readU64("a tensor handle"), "tensor"));
        return true;
      case Op::kTimeEvaluator:
        timeEvaluator();
        return true;
      case Op::kEcho: {
        Value v = readValue(wire_, table_, "a value");
        table_.checkArguments();
        replyOk(v);
        return true;
      }
    }
    throw RpcError(strCat("protocol error: unknown request ", static_cast<uint32_t>(op)));
  }

  Wire& wire() { return wire_; }
  HandleTable& table() { return table_; }

  void replyOk(const Value& v) {
    wire_.u8(kOk);
    writeValue(wire_, v, table_);
    wire_.flush();
  }
  void replyError(const std::string& message) {
    wire_.u8(kFailed);
    wire_.text(message);
    wire_.flush();
  }

 private:
  Json info() const {
    Json j;
    j["protocol"] = static_cast<int64_t>(kProtocolVersion);
    j["producer"] = producerVersion();
    j["arch"] = hostArch();
    j["cores"] = static_cast<int64_t>(std::thread::hardware_concurrency());
    j["session_dir"] = files_.root();
    j["pid"] = static_cast<int64_t>(::getpid());
    j["server_pid"] = static_cast<int64_t>(::getppid());
    j["peak_memory_bytes"] = peakMemoryBytes();
    return j;
  }

  void upload() {
    std::string requested = wire_.readText("an upload path");
    uint64_t size = wire_.readU64("an upload size");
    if (size > kMaxBlobBytes) {
      throw RpcError(strCat("protocol error: an upload of ", size, " bytes; at most ",
                            kMaxBlobBytes, " are accepted"));
    }
    std::string path;
    try {
      path = files_.resolve(requested, true);
    } catch (const Error&) {
      receive(size, nullptr);  // the data still comes: read it, then refuse
      throw;
    }
    std::string tmp = path + ".part";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      receive(size, &out);
      if (!out) throw Error(strCat("cannot write '", path, "' (disk full?)"));
    }
    std::filesystem::rename(tmp, path);
    replyOk(Value());
  }

  // Reads SIZE bytes of upload data in 1 MiB chunks into OUT (discarded when null).
  void receive(uint64_t size, std::ofstream* out) {
    std::vector<char> chunk(size_t{1} << 20);
    for (uint64_t done = 0; done < size;) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), size - done));
      wire_.readRaw(chunk.data(), n, "upload data");
      if (out != nullptr) out->write(chunk.data(), static_cast<std::streamsize>(n));
      done += n;
    }
  }

  void allocTensor() {
    Json spec = readValue(wire_, table_, "a tensor spec").asJson();
    Shape shape;
    for (const Json& d : spec.at("shape").asArray()) shape.push_back(d.asInt());
    DataType dtype = DataType::parse(spec.at("dtype").asString());
    if (std::string problem = tensorSpecProblem(shape, dtype, wire_.limits().tensorBytes);
        !problem.empty()) {
      throw Error(strCat("cannot allocate a ", dtype.str(), " tensor that ", problem));
    }
    NDArray a = NDArray::empty(shape, dtype);
    wire_.u8(kOk);
    table_.writeRemoteTensor(wire_, a);
    wire_.flush();
  }

  Args readArgs() {
    uint32_t n = wire_.readU32("an argument count");
    if (n > kMaxArgs)
      throw RpcError(strCat("protocol error: ", n, " arguments; at most ", kMaxArgs));
    Args args;
    for (uint32_t i = 0; i < n; ++i) args.push_back(readValue(wire_, table_, "an argument"));
    table_.checkArguments();
    return args;
  }

  void timeEvaluator() {
    uint64_t id = wire_.readU64("a module handle");
    std::string name = wire_.readText("a function name");
    uint32_t repeat = wire_.readU32("repeat"), number = wire_.readU32("number");
    Args args = readArgs();
    PackedFunc f = table_.get(id, "module").asModule()[name];
    Json times = Json(Json::Array{});
    for (double ms : timeEvaluate(f, args, repeat, number)) times.push(Json(ms));
    Json j;
    j["times_ms"] = std::move(times);
    replyOk(Value(j));
  }

  Wire wire_;
  SessionFiles files_;
  std::vector<std::string> extensions_;  // where loaded modules find backend runtimes
  HandleTable table_;
};

}  // namespace

void serveAcceptedSession(Socket socket, const std::string& sessionDir,
                          const ServerOptions& options) {
  std::filesystem::create_directories(sessionDir);
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{sessionDir};
  SessionHandler handler(socket, sessionDir, options);
  answerHello(handler.wire(), kAccepted, producerVersion());
  for (;;) {
    if (!socket.waitReadable(options.idleTimeout)) return;  // idle: end the session
    auto op = static_cast<Op>(handler.wire().readU32("a request"));
    try {
      if (!handler.handle(op)) return;
    } catch (const RpcError&) {
      throw;  // the connection or the protocol is broken: end the session
    } catch (const std::exception& e) {
      // The request was read in full (errors are raised after reading), so the stream is in step.
      handler.replyError(e.what());
    }
  }
}

void serveSession(Socket socket, const std::string& sessionDir, const ServerOptions& options) {
  Wire wire(socket, options.handshakeTimeout);
  std::string refusal = refusalOf(readHello(wire), options.token, kSessionPurposes, "server");
  if (!refusal.empty()) {
    answerHello(wire, kRefused, refusal);
    return;
  }
  serveAcceptedSession(std::move(socket), sessionDir, options);
}

}  // namespace kiln::runtime::rpc
