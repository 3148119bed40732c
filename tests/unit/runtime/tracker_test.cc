// The tracker: servers pooled by key, sessions handed out by priority, timeouts that name the key
// and the wait, duplicate registrations, servers that leave and trackers that come back. The
// tracker and the servers run in processes of their own.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "../../../src/runtime/rpc/handshake.h"
#include "../../../src/runtime/rpc/json_message.h"
#include "rpc_processes.h"
#include "test_util.h"

namespace kiln::runtime::rpc {
namespace {

using test::contains;
using test::errorOf;

class TrackerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TrackerOptions options;
    options.port = 0;
    tracker_ = std::make_unique<TrackerProcess>(options);
  }
  // A server registered under KEY; returns once the tracker lists it (and OTHERS registered
  // otherwise).
  ServerProcess& addServer(const std::string& key, int others = 0) {
    ServerOptions options;
    options.workdir = scratch_.file(strCat("work", servers_.size()));
    options.tracker = strCat("127.0.0.1:", tracker_->port());
    options.key = key;
    servers_.push_back(std::make_unique<ServerProcess>(options));
    awaitServers(static_cast<int>(servers_.size()) + others);
    return *servers_.back();
  }
  HostPort at() const { return {"127.0.0.1", tracker_->port()}; }
  Json status() { return trackerStatus(at(), ""); }
  // Waits (up to 10 s) until the tracker lists N servers.
  void awaitServers(int n) {
    for (int i = 0; i < 500 && static_cast<int>(status().at("servers").size()) != n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_EQ(static_cast<int>(status().at("servers").size()), n) << status().dump();
  }
  void awaitQueue(int n) {
    for (int i = 0; i < 500 && static_cast<int>(status().at("queue").size()) != n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_EQ(static_cast<int>(status().at("queue").size()), n) << status().dump();
  }
  std::shared_ptr<Client> request(const std::string& key, int priority = 0,
                                  Millis timeout = Millis(30000)) {
    SessionRequest r;
    r.key = key;
    r.priority = priority;
    r.timeout = timeout;
    return requestSession(at(), r);
  }

  test::ScratchDir scratch_{"tracker"};
  std::unique_ptr<TrackerProcess> tracker_;
  std::vector<std::unique_ptr<ServerProcess>> servers_;
};

TEST_F(TrackerTest, FourSessionsInParallelThroughOneTrackerOnTwoServers) {
  addServer("board");
  addServer("board");
  addServer("other");
  std::atomic<int> running{0}, most{0}, done{0};
  std::mutex mutex;
  std::set<std::string> used;
  std::vector<std::thread> clients;
  clients.reserve(4);
  for (int i = 0; i < 4; ++i) {
    clients.emplace_back([&, i] {
      auto c = request("board");
      int now = ++running;
      for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
      }
      EXPECT_EQ(c->echo(Value(int64_t{i})).asInt(), i);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      {
        std::lock_guard<std::mutex> lock(mutex);
        used.insert(c->peer());
      }
      --running;
      c->close();
      ++done;
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(done.load(), 4);
  EXPECT_EQ(used.size(), 2u);  // both servers of the key, never the other key's
  EXPECT_LE(most.load(), 2);
  EXPECT_EQ(status().at("sessions_served").asInt(), 4);
}

TEST_F(TrackerTest, ARequestThatTimesOutNamesTheKeyAndItsWait) {
  addServer("board");
  auto held = request("board");
  std::string e = errorOf([&] { request("board", 0, Millis(500)); });
  EXPECT_TRUE(contains(e, "no server with key 'board' became free within 0.5")) << e;
  EXPECT_TRUE(contains(e, "1 server(s) with key 'board', 1 serving sessions")) << e;
  e = errorOf([&] { request("rpi4", 0, Millis(300)); });
  EXPECT_TRUE(contains(e, "key 'rpi4'")) << e;
  EXPECT_TRUE(contains(e, "no server is registered with key 'rpi4' (registered keys: 'board')"))
      << e;
  held->close();
  EXPECT_EQ(request("board")->echo(Value(int64_t{1})).asInt(), 1);  // freed and handed out again
}

TEST_F(TrackerTest, HigherPriorityRequestsAreServedFirst) {
  addServer("board");
  auto held = request("board");
  std::mutex mutex;
  std::vector<int> order;
  auto ask = [&](int priority) {
    auto c = request("board", priority);
    {
      std::lock_guard<std::mutex> lock(mutex);
      order.push_back(priority);
    }
    c->close();
  };
  std::thread low(ask, 0);
  awaitQueue(1);
  std::thread high(ask, 5);
  awaitQueue(2);
  Json queue = status().at("queue");
  EXPECT_EQ(queue[0].at("priority").asInt(), 5);  // the status lists the queue in serving order
  held->close();
  low.join();
  high.join();
  EXPECT_EQ(order, (std::vector<int>{5, 0}));
}

TEST_F(TrackerTest, ADuplicateRegistrationReplacesTheEarlierOne) {
  auto registerAs = [&](const std::string& key, Socket& socket) {
    socket = Socket::connect("127.0.0.1", tracker_->port(), Millis(5000));
    Wire wire(socket, Millis(5000));
    sayHello(wire, "", "register");
    Json reg;
    reg["key"] = key;
    reg["host"] = "127.0.0.1";
    reg["port"] = 40001;
    reg["busy"] = false;
    sendJson(wire, reg);
    return readJson(wire, "answer").at("replaced").asBool();
  };
  Socket first, second;
  EXPECT_FALSE(registerAs("board", first));
  EXPECT_TRUE(registerAs("board-v2", second));
  Json servers = status().at("servers");
  ASSERT_EQ(servers.size(), 1u) << servers.dump();
  EXPECT_EQ(servers[0].at("key").asString(), "board-v2");
  EXPECT_EQ(servers[0].at("address").asString(), "127.0.0.1:40001");
  // The tracker tells the replaced registration so, and closes its connection.
  ASSERT_TRUE(first.waitReadable(Millis(5000)));
  Wire wire(first, Millis(5000));
  EXPECT_TRUE(readJson(wire, "notice").at("replaced").asBool());
  char byte = 0;
  EXPECT_FALSE(errorOf([&] { first.readExact(&byte, 1, Millis(1000), "eof"); }).empty());
}

TEST_F(TrackerTest, AServerThatIsGoneBeforeTheTrackerKnowsIsSkipped) {
  // A registration whose server no longer listens (it died; its connection is still open), made
  // first so that it is the one offered first.
  int deadPort = 0;
  {
    Listener probe("127.0.0.1", 0);
    deadPort = probe.port();
  }
  Socket ghost = Socket::connect("127.0.0.1", tracker_->port(), Millis(5000));
  Wire wire(ghost, Millis(5000));
  sayHello(wire, "", "register");
  Json reg;
  reg["key"] = "board";
  reg["host"] = "127.0.0.1";
  reg["port"] = deadPort;
  reg["busy"] = false;
  sendJson(wire, reg);
  readJson(wire, "answer");
  addServer("board", 1);
  EXPECT_EQ(request("board", 0, Millis(10000))->echo(Value(int64_t{4})).asInt(), 4);
}

TEST_F(TrackerTest, AServerThatStopsLeavesThePoolAndOneThatComesBackRejoins) {
  addServer("board").stop();
  servers_.clear();
  awaitServers(0);
  // A tracker restarted on its port: the running server registers again by itself.
  addServer("board");
  int port = tracker_->port();
  tracker_.reset();
  TrackerOptions options;
  options.port = port;
  tracker_ = std::make_unique<TrackerProcess>(options);
  awaitServers(1);
  EXPECT_EQ(request("board")->echo(Value(int64_t{2})).asInt(), 2);
}

// Registrations and requests with unusable fields are refused with the reason, never pooled,
// handed out or echoed raw: ports out of range, keys with control characters or a megabyte long.
TEST_F(TrackerTest, UnusableRegistrationsAndRequestsAreRefusedAndNeverPooled) {
  auto send = [&](const char* purpose, const Json& message) {
    Socket s = Socket::connect("127.0.0.1", tracker_->port(), Millis(5000));
    Wire w(s, Millis(5000));
    sayHello(w, "", purpose);
    sendJson(w, message);
    return readJson(w, "the tracker's answer");
  };
  auto registration = [](const std::string& key, const Json& host, const Json& port) {
    Json r;
    r["key"] = key;
    r["host"] = host;
    r["port"] = port;
    r["busy"] = false;
    return r;
  };
  for (const Json& port : {Json(-5), Json(70000), Json(0), Json("9000"), Json(1.5)}) {
    Json answer = send("register", registration("board", "127.0.0.1", port));
    ASSERT_TRUE(answer.contains("error")) << answer.dump();
    EXPECT_TRUE(contains(answer.at("error").asString(), "'port'")) << answer.dump();
  }
  Json answer = send("register", registration("board", "bad host;rm -rf", 9000));
  EXPECT_TRUE(contains(answer.at("error").asString(), "not a host name")) << answer.dump();
  std::string escapes = "rpi\n\x1b[31mred";
  answer = send("register", registration(escapes, "127.0.0.1", 9000));
  std::string why = answer.at("error").asString();
  EXPECT_TRUE(contains(why, "\\n\\u001b[31mred")) << why;  // escaped, not raw
  EXPECT_EQ(why.find('\x1b'), std::string::npos) << why;
  std::string huge(1 << 19, 'k');  // half a MiB: a tracker message may hold one
  answer = send("register", registration(huge, "127.0.0.1", 9000));
  why = answer.at("error").asString();
  EXPECT_TRUE(contains(why, "(524288 bytes)")) << why.size();
  EXPECT_LT(why.size(), 400u);
  Json ask;
  ask["key"] = huge;
  ask["priority"] = 0;
  ask["timeout_ms"] = 1000;
  ask["waited_ms"] = 0;
  EXPECT_TRUE(send("request", ask).contains("error"));
  ask["key"] = "board";
  ask["priority"] = int64_t{1} << 40;
  answer = send("request", ask);
  EXPECT_TRUE(contains(answer.at("error").asString(), "'priority'")) << answer.dump();
  EXPECT_EQ(status().at("servers").size(), 0u) << status().dump();
  EXPECT_EQ(status().at("queue").size(), 0u) << status().dump();
  // A server told its key is unusable refuses to start at all.
  ServerOptions bad;
  bad.tracker = strCat("127.0.0.1:", tracker_->port());
  bad.key = "two words";
  EXPECT_TRUE(contains(errorOf([&] { Server s(bad); }), "--key: the key \"two words\""));
}

TEST_F(TrackerTest, TrackersAndServersRefuseWhatTheyDoNotServe) {
  ServerProcess& server = addServer("board");
  std::string e = errorOf([&] { Client::connect("127.0.0.1", tracker_->port()); });
  EXPECT_TRUE(contains(e, "this is a kiln RPC tracker; it does not serve \"session\"")) << e;
  e = errorOf([&] { trackerStatus({"127.0.0.1", server.port()}, ""); });
  EXPECT_TRUE(contains(e, "this is a kiln RPC server; it does not serve \"status\"")) << e;
  e = errorOf([&] { request(""); });
  EXPECT_TRUE(contains(e, "the key is empty")) << e;
}

TEST(Tracker, ATokenGuardsTheTrackerAndItsServers) {
  test::ScratchDir scratch("tracker_token");
  TrackerOptions toptions;
  toptions.port = 0;
  toptions.token = "secret";
  TrackerProcess tracker(toptions);
  ServerOptions soptions;
  soptions.workdir = scratch.file("work");
  soptions.tracker = strCat("127.0.0.1:", tracker.port());
  soptions.key = "board";
  soptions.token = "secret";
  ServerProcess server(soptions);
  SessionRequest r;
  r.key = "board";
  r.timeout = Millis(10000);
  std::string e = errorOf([&] { requestSession({"127.0.0.1", tracker.port()}, r); });
  EXPECT_TRUE(contains(e, "token does not match the tracker's --auth-token-file")) << e;
  r.client.token = "secret";
  EXPECT_EQ(requestSession({"127.0.0.1", tracker.port()}, r)->echo(Value(int64_t{3})).asInt(), 3);
  TrackerOptions open;
  open.host = "0.0.0.0";
  e = errorOf([&] { Tracker t(open); });
  EXPECT_TRUE(contains(e, "--auth-token-file")) << e;
}

TEST(Tracker, HostPortIsParsedOrRefusedClearly) {
  HostPort hp = parseHostPort("board.lan:9190", "--tracker");
  EXPECT_EQ(hp.host, "board.lan");
  EXPECT_EQ(hp.port, 9190);
  for (const char* bad : {"board", ":9190", "board:", "board:0", "board:70000", "board:9x"}) {
    std::string e = errorOf([&] { parseHostPort(bad, "--tracker"); });
    EXPECT_TRUE(contains(e, strCat("--tracker '", bad, "': expected HOST:PORT"))) << e;
  }
}

}  // namespace
}  // namespace kiln::runtime::rpc
