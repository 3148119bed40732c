// The RPC server and client over loopback: values of every type round-trip, sessions are
// isolated and cleaned up, and broken, hostile or mismatched peers get clear errors while the
// server goes on serving.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "kiln/runtime/c_api.h"
#include "kiln/runtime/rpc/client.h"
#include "kiln/runtime/rpc/server.h"
#include "rpc_processes.h"
#include "test_util.h"

namespace kiln::runtime::rpc {
namespace {

using test::contains;
using test::errorOf;

class RpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.workdir = scratch_.file("work");
    server_ = std::make_unique<ServerProcess>(options);
  }
  std::shared_ptr<Client> connect(const ClientOptions& options = {}) {
    return Client::connect("127.0.0.1", server_->port(), options);
  }
  // A raw connection that has shaken hands like a client.
  Socket rawSession() {
    Socket s = Socket::connect("127.0.0.1", server_->port(), Millis(5000));
    Wire w(s, Millis(5000));
    w.raw(kMagic, sizeof kMagic);
    w.u32(kProtocolVersion);
    w.text("");
    w.text("session");
    w.flush();
    char magic[8];
    w.readRaw(magic, 8, "handshake");
    w.readU32("handshake");
    EXPECT_EQ(w.readU8("handshake"), 1);
    w.readText("handshake");
    return s;
  }
  std::string workdir() const { return scratch_.file("work"); }

  test::ScratchDir scratch_{"rpc"};
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(RpcTest, ValuesOfEveryTypeRoundTrip) {
  auto c = connect();
  EXPECT_TRUE(c->echo(Value()).isNone());
  EXPECT_EQ(c->echo(Value(int64_t{-7})).asInt(), -7);
  EXPECT_EQ(c->echo(Value(2.5)).asDouble(), 2.5);
  EXPECT_EQ(c->echo(Value(true)).asBool(), true);
  EXPECT_EQ(c->echo(Value(std::string("héllo"))).asString(), "héllo");
  EXPECT_EQ(c->echo(Value(Bytes{std::string("a\0b", 3)})).asBytes().data, std::string("a\0b", 3));
  EXPECT_EQ(c->echo(Value(Device::cpu(3))).asDevice().id, 3);
  EXPECT_EQ(c->echo(Value(DataType::int64())).asDataType(), DataType::int64());
  EXPECT_EQ(c->echo(Value(Json::parse(R"({"a": [1, 2]})"))).asJson().at("a")[1].asInt(), 2);
  NDArray t = NDArray::empty({2, 3}, DataType::float32());
  for (int i = 0; i < 6; ++i) t.data<float>()[i] = static_cast<float>(i) * 1.5f;
  NDArray back = c->echo(Value(t)).asNDArray();
  ASSERT_EQ(back.shape(), t.shape());
  EXPECT_EQ(std::memcmp(back.data(), t.data(), t.nbytes()), 0);
  NDArray words = NDArray::empty({3}, DataType::string());
  words.data<std::string>()[0] = std::string(300, 'w');
  words.data<std::string>()[2] = std::string("a\0b", 3);
  NDArray wordsBack = c->echo(Value(words)).asNDArray();
  ASSERT_EQ(wordsBack.dtype(), DataType::string());
  ASSERT_EQ(wordsBack.shape(), (Shape{3}));
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(wordsBack.data<std::string>()[i], words.data<std::string>()[i]);
  TensorList list{{t, NDArray::empty({0}, DataType::int64())}, false};
  TensorList listBack = c->echo(Value(list)).asTensorList();
  ASSERT_EQ(listBack.items.size(), 2U);
  EXPECT_FALSE(listBack.none);
  EXPECT_EQ(std::memcmp(listBack.items[0].data(), t.data(), t.nbytes()), 0);
  EXPECT_EQ(listBack.items[1].shape(), (Shape{0}));
  EXPECT_EQ(listBack.items[1].dtype(), DataType::int64());
  EXPECT_TRUE(c->echo(Value(TensorList::noValue())).asTensorList().none);
  Json info = c->info();
  EXPECT_EQ(info.at("protocol").asInt(), kProtocolVersion);
  EXPECT_FALSE(info.at("arch").asString().empty());
}

int64_t peakMemoryBytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return -1;
}

// 1 GiB each way, streamed from and into the arrays' own memory: neither side holds a second
// copy (a serialisation buffer would add a whole GiB).
TEST_F(RpcTest, AGibibyteTensorRoundTripsWithBoundedMemory) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "memory figures are not meaningful under a sanitizer";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  GTEST_SKIP() << "memory figures are not meaningful under a sanitizer";
#endif
#endif
  constexpr int64_t kGiB = int64_t{1} << 30;
  auto c = connect();
  int64_t serverBefore = c->info().at("peak_memory_bytes").asInt();
  int64_t before = peakMemoryBytes();
  NDArray big = NDArray::empty({kGiB / 4}, DataType::float32());
  std::memset(big.data(), 0, big.nbytes());
  big.data<float>()[0] = 1.5f;
  big.data<float>()[big.numel() - 1] = -2.5f;
  NDArray back = c->echo(Value(big)).asNDArray();
  EXPECT_EQ(back.data<float>()[0], 1.5f);
  EXPECT_EQ(back.data<float>()[back.numel() - 1], -2.5f);
  int64_t serverAfter = c->info().at("peak_memory_bytes").asInt();
  // The client holds the tensor and its echo; the server the one tensor it received.
  EXPECT_LT(peakMemoryBytes() - before, 2 * kGiB + kGiB / 4);
  EXPECT_LT(serverAfter - serverBefore, kGiB + kGiB / 4);
  EXPECT_GT(serverAfter - serverBefore, kGiB - kGiB / 4);
}

TEST_F(RpcTest, RemoteTensorsStayOnTheServer) {
  auto c = connect();
  Module remote = c->allocTensor({4}, DataType::float32());
  EXPECT_STREQ(remote.typeKey(), "remote_tensor");
  NDArray x = NDArray::empty({4}, DataType::float32());
  for (int i = 0; i < 4; ++i) x.data<float>()[i] = static_cast<float>(i + 1);
  c->copyToRemote(remote, x);
  NDArray y = c->copyFromRemote(remote);
  EXPECT_EQ(y.data<float>()[3], 4.0f);
  EXPECT_TRUE(contains(
      errorOf([&] { c->copyToRemote(remote, NDArray::empty({5}, DataType::float32())); }), "[5]"));
  // The session goes on after an error.
  EXPECT_EQ(c->echo(Value(int64_t{1})).asInt(), 1);
}

TEST_F(RpcTest, UploadsStayInTheSessionFolderAndGoWithIt) {
  auto c = connect();
  c->uploadBytes("weights", "models/m.params");
  Json files = c->listFiles();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].asString(), "models/m.params");
  std::string dir = c->info().at("session_dir").asString();
  EXPECT_TRUE(std::filesystem::exists(dir + "/models/m.params"));
  for (const char* bad : {"../escape", "/etc/passwd", "a/../../b", "", "./x"}) {
    std::string e = errorOf([&] { c->uploadBytes("x", bad); });
    EXPECT_TRUE(contains(e, "is refused")) << bad << ": " << e;
  }
  // A symlink planted in the folder does not lead out of it.
  std::filesystem::create_directory_symlink("/tmp", dir + "/link");
  EXPECT_TRUE(contains(errorOf([&] { c->uploadBytes("x", "link/x"); }), "symbolic link"));
  EXPECT_TRUE(contains(errorOf([&] { c->loadModule("link"); }), "symbolic link"));
  EXPECT_EQ(c->echo(Value(int64_t{2})).asInt(), 2);
  c->close();
  // The server removes the folder when the session ends; give it a moment to notice.
  for (int i = 0; i < 50 && std::filesystem::exists(dir); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST_F(RpcTest, EachSessionRunsInAFreshProcess) {
  Json a = connect()->info();
  Json b = connect()->info();
  EXPECT_NE(a.at("session_dir").asString(), b.at("session_dir").asString());
  EXPECT_NE(a.at("pid").asInt(), b.at("pid").asInt());
  EXPECT_NE(a.at("pid").asInt(), static_cast<int64_t>(::getpid()));
}

// An echo request of a float32 tensor with DIMS that claims NBYTES, its data left to the caller.
void echoTensorHeader(Wire& w, const std::vector<uint64_t>& dims, uint64_t nbytes) {
  w.u32(static_cast<uint32_t>(Op::kEcho));
  w.u32(kKilnTensor);
  w.u8(kDLFloat);
  w.u8(32);
  w.u32(1);
  w.u32(static_cast<uint32_t>(dims.size()));
  for (uint64_t d : dims) w.u64(d);
  w.u64(nbytes);
}

TEST_F(RpcTest, GarbageAndDroppedClientsDoNotStopTheServer) {
  {
    Socket s = Socket::connect("127.0.0.1", server_->port(), Millis(5000));
    std::string junk(4096, '\x5a');
    s.writeAll(junk.data(), junk.size(), Millis(5000), "junk");
  }
  {
    // A tensor announced at 64 MiB whose sender disappears after 1 MiB.
    Socket s = rawSession();
    Wire w(s, Millis(5000));
    echoTensorHeader(w, {uint64_t{16} << 20}, uint64_t{64} << 20);
    std::string part(size_t{1} << 20, '\0');
    w.raw(part.data(), part.size());
    w.flush();
  }
  {
    // A request claiming an absurd tensor is refused without allocating it.
    Socket s = rawSession();
    Wire w(s, Millis(5000));
    echoTensorHeader(w, {uint64_t{1} << 40, uint64_t{1} << 40}, 0);
    w.flush();
    // The server ends that session at once (closed or reset), without waiting for 2^40 bytes.
    char b;
    std::string e = errorOf([&] { s.readExact(&b, 1, Millis(5000), "a reply"); });
    EXPECT_TRUE(contains(e, "connection closed") || contains(e, "reset")) << e;
  }
  auto c = connect();
  EXPECT_EQ(c->echo(Value(int64_t{42})).asInt(), 42);
}

// Reads remote objects in a reply as their handles.
class HandlesAsInts : public HandleCodec {
 public:
  void writeObject(Wire&, const Value&) override {}
  Value readObject(int32_t, uint64_t id, const std::string&) override {
    return Value(static_cast<int64_t>(id));
  }
};

// The reply to a request: its status (0 ok, 1 failed), value and error text; status -1 when the
// server ended the session instead (the connection closed or was reset).
struct Reply {
  int status = -1;
  Value value;
  std::string error;
};
Reply readReply(Socket& s) {
  Wire w(s, Millis(5000));
  Reply r;
  HandlesAsInts codec;
  try {
    r.status = w.readU8("a reply");
    if (r.status == 1) r.error = w.readText("an error");
    if (r.status == 0) r.value = readValue(w, codec, "a reply");
  } catch (const RpcError&) {
    r.status = -1;
  }
  return r;
}

// Requests whose frames break the protocol after a valid handshake: each ends its own session
// (and only it), without a crash or an allocation out of proportion.
TEST_F(RpcTest, MalformedFramesAfterTheHandshakeEndOnlyTheirSession) {
  auto frame = [](const std::function<void(Wire&)>& write) { return write; };
  // An echo of a device value whose type code is CODE (device id 0).
  auto deviceFrame = [](uint32_t code) {
    return std::function<void(Wire&)>([code](Wire& w) {
      w.u32(14);
      w.u32(kKilnDevice);
      w.u32(code);
      w.u32(0);
    });
  };
  std::vector<std::pair<const char*, std::function<void(Wire&)>>> frames = {
      {"an unknown op", frame([](Wire& w) { w.u32(99); })},
      {"an unknown type code", frame([](Wire& w) {
         w.u32(14);
         w.u32(77);
       })},
      {"a bool byte of 7", frame([](Wire& w) {
         w.u32(14);
         w.u32(kKilnBool);
         w.u8(7);
       })},
      {"a list flag of 2", frame([](Wire& w) {
         w.u32(14);
         w.u32(kKilnTensorList);
         w.u8(2);
       })},
      {"an unknown dtype code", frame([](Wire& w) {
         w.u32(14);
         w.u32(kKilnTensor);
         w.u8(77);
         w.u8(32);
         w.u32(1);
         w.u32(0);
         w.u64(4);
       })},
      {"a data type value of 3 bits", frame([](Wire& w) {
         w.u32(14);
         w.u32(kKilnDataType);
         w.u8(kDLFloat);
         w.u8(3);
         w.u32(1);
       })},
      {"a device type code of 5 (no DLPack device)", deviceFrame(5)},
      {"a device type code of 2^31", deviceFrame(uint32_t{1} << 31)},
      {"a tensor of rank 40", frame([](Wire& w) {
         w.u32(14);
         w.u32(kKilnTensor);
         w.u8(kDLFloat);
         w.u8(32);
         w.u32(1);
         w.u32(40);
       })},
      {"text claiming 2^40 bytes", frame([](Wire& w) {
         w.u32(14);
         w.u32(kKilnString);
         w.u64(uint64_t{1} << 40);
       })},
      {"a list of 2^30 tensors", frame([](Wire& w) {
         w.u32(14);
         w.u32(kKilnTensorList);
         w.u8(0);
         w.u64(uint64_t{1} << 30);
       })},
      {"strings claiming fewer bytes than their count", frame([](Wire& w) {
         w.u32(14);
         w.u32(kKilnTensor);
         w.u8(129);
         w.u8(0);
         w.u32(1);
         w.u32(1);
         w.u64(1000);
         w.u64(16);
       })},
  };
  for (auto& [what, write] : frames) {
    Socket s = rawSession();
    Wire w(s, Millis(5000));
    write(w);
    w.flush();
    EXPECT_EQ(readReply(s).status, -1) << what << ": the session should have ended";
  }
  EXPECT_EQ(connect()->echo(Value(int64_t{7})).asInt(), 7);
}

// Requests that are well formed but name what does not exist or cannot be: each is answered with
// an error saying why, and the session goes on.
TEST_F(RpcTest, BadHandlesAndImpossibleTensorsAreAnsweredWithErrors) {
  Socket s = rawSession();
  Wire w(s, Millis(5000));
  auto request = [&](const std::function<void()>& write) {
    write();
    w.flush();
    return readReply(s);
  };
  auto freeHandle = [&](uint64_t h) {
    return request([&] {
      w.u32(9);
      w.u64(h);
    });
  };
  auto alloc = [&](const std::string& spec) {
    return request([&] {
      w.u32(10);
      w.u32(kKilnJson);
      w.text(spec);
    });
  };
  Reply r = freeHandle(77);
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.error, "never issued")) << r.error;
  r = freeHandle(0);
  EXPECT_TRUE(contains(r.error, "cannot free handle 0: this session never issued it")) << r.error;
  // A tensor allocated, freed, then freed again.
  r = alloc(R"({"shape":[2,3],"dtype":"float32"})");
  ASSERT_EQ(r.status, 0) << r.error;
  auto handle = static_cast<uint64_t>(r.value.asInt());
  EXPECT_EQ(freeHandle(handle).status, 0);
  r = freeHandle(handle);
  EXPECT_TRUE(contains(r.error, "freed already")) << r.error;
  std::string rank40 = "[";
  for (int i = 0; i < 40; ++i) rank40 += i ? ",1" : "1";
  r = alloc(R"({"shape":)" + rank40 + R"(],"dtype":"float32"})");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.error, "rank 40; at most 32")) << r.error;
  r = alloc(R"({"shape":[-3],"dtype":"float32"})");
  EXPECT_TRUE(contains(r.error, "dimension -3")) << r.error;
  r = alloc(R"({"shape":[1099511627776,1099511627776],"dtype":"float32"})");
  EXPECT_TRUE(contains(r.error, "the most one tensor may hold")) << r.error;
  r = alloc(R"({"shape":[2],"dtype":"float7"})");
  EXPECT_TRUE(contains(r.error, "unknown data type 'float7'")) << r.error;
  // The session is still in step.
  r = request([&] {
    w.u32(14);
    w.u32(kKilnInt);
    w.u64(5);
  });
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.value.asInt(), 5);
}

// A client that disappears in the middle of any request costs only its own session.
TEST_F(RpcTest, AClientKilledInTheMiddleOfEachOpLeavesTheServerServing) {
  for (uint32_t op = 1; op <= 14; ++op) {
    for (int cut : {4, 6, 13}) {  // after the op code, inside its first field, further on
      Socket s = rawSession();
      std::string frame;
      for (int i = 0; i < 4; ++i) frame += static_cast<char>((op >> (8 * i)) & 0xFF);
      frame += std::string(64, '\x02');
      s.writeAll(frame.data(), static_cast<size_t>(cut), Millis(5000), "a partial request");
      s.close();
    }
  }
  EXPECT_EQ(connect()->echo(Value(int64_t{8})).asInt(), 8);
}

TEST_F(RpcTest, AnotherProtocolVersionIsRefusedNamingBoth) {
  Socket s = Socket::connect("127.0.0.1", server_->port(), Millis(5000));
  Wire w(s, Millis(5000));
  w.raw(kMagic, sizeof kMagic);
  w.u32(kProtocolVersion + 1);
  w.text("");
  w.text("session");
  char magic[8];
  w.readRaw(magic, 8, "handshake");
  EXPECT_EQ(w.readU32("handshake"), kProtocolVersion);
  EXPECT_EQ(w.readU8("handshake"), 0);
  std::string why = w.readText("handshake");
  EXPECT_TRUE(contains(why, strCat("protocol ", kProtocolVersion + 1))) << why;
  EXPECT_TRUE(contains(why, strCat("speaks ", kProtocolVersion))) << why;
}

TEST_F(RpcTest, ASecondClientIsToldTheServerIsBusy) {
  auto first = connect();
  std::string e = errorOf([&] { connect(); });
  EXPECT_TRUE(contains(e, "busy")) << e;
  first->close();
  EXPECT_EQ(connect()->echo(Value(int64_t{3})).asInt(), 3);
}

TEST(Rpc, ASilentServerTimesOutNamingWhatWasAwaited) {
  Listener silent("127.0.0.1", 0);
  ClientOptions options;
  options.ioTimeout = Millis(300);
  std::string e = errorOf([&] { Client::connect("127.0.0.1", silent.port(), options); });
  EXPECT_TRUE(contains(e, "timed out after 0.3 s waiting for the handshake's answer")) << e;
  EXPECT_TRUE(contains(e, strCat("127.0.0.1:", silent.port()))) << e;
}

// Connections that send nothing (more than the server keeps waiting) hold no session slot: a
// client with the right token is served at once, and the silent ones are dropped after the
// handshake deadline.
TEST(Rpc, SilentConnectionsHoldNoSessionSlot) {
  test::ScratchDir scratch("rpc_silent");
  ServerOptions options;
  options.workdir = scratch.file("work");
  options.token = "secret";
  options.handshakeTimeout = Millis(700);
  ServerProcess server(options);
  std::vector<Socket> silent;
  for (size_t i = 0; i < kMaxPendingHandshakes + 8; ++i) {
    silent.push_back(Socket::connect("127.0.0.1", server.port(), Millis(5000)));
  }
  ClientOptions right;
  right.token = "secret";
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Client::connect("127.0.0.1", server.port(), right)->echo(Value(int64_t{9})).asInt(), 9);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  // Every silent connection is closed by the server within its deadline (plus the loop's tick).
  for (Socket& s : silent) {
    char b;
    std::string e = errorOf([&] { s.readExact(&b, 1, Millis(5000), "the server's close"); });
    EXPECT_TRUE(contains(e, "connection closed") || contains(e, "reset")) << e;
  }
}

TEST(Rpc, NonLoopbackServersNeedAToken) {
  ServerOptions options;
  options.host = "0.0.0.0";
  std::string e = errorOf([&] { Server s(options); });
  EXPECT_TRUE(contains(e, "--auth-token-file")) << e;
}

TEST(Rpc, AWrongTokenIsRefused) {
  test::ScratchDir scratch("rpc_token");
  ServerOptions options;
  options.workdir = scratch.file("work");
  options.token = "secret";
  ServerProcess server(options);
  ClientOptions wrong;
  wrong.token = "guess";
  std::string e = errorOf([&] { Client::connect("127.0.0.1", server.port(), wrong); });
  EXPECT_TRUE(contains(e, "token does not match")) << e;
  ClientOptions right;
  right.token = "secret";
  EXPECT_EQ(Client::connect("127.0.0.1", server.port(), right)->echo(Value(int64_t{5})).asInt(), 5);
}

}  // namespace
}  // namespace kiln::runtime::rpc
