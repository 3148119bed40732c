// Tests for the thread pool: exact coverage, contiguous chunks, status and exception propagation,
// persistent workers, and the KILN_NUM_THREADS setting.
#include "kiln/runtime/thread_pool.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "kiln/support/error.h"
#include "test_util.h"

// WorksInAForkedChild starts threads in a child forked from a threaded process, as the pool does
// on purpose. ThreadSanitizer cannot follow that and by default kills the child; this default
// (TSAN_OPTIONS still overrides it) lets the child run, so the tsan build still checks the rest.
// NOLINTNEXTLINE(bugprone-reserved-identifier,readability-identifier-naming): TSan's name.
extern "C" const char* __tsan_default_options() { return "die_after_fork=0"; }

namespace kiln::runtime {
namespace {

class ThreadPoolTest : public ::testing::Test {
 protected:
  void TearDown() override {
    ::unsetenv("KILN_NUM_THREADS");
    pool().setNumThreads(ThreadPool::defaultNumThreads());
  }
  static ThreadPool& pool() { return ThreadPool::global(); }
};

size_t osThreadCount() {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++n;
  }
  return n;
}

TEST_F(ThreadPoolTest, CoversEveryIndexExactlyOnce) {
  for (int threads : {1, 2, 3, 4, 7}) {
    pool().setNumThreads(threads);
    EXPECT_EQ(pool().numThreads(), threads);
    for (int64_t extent : {0, 1, 2, 3, 5, 8, 100, 10007}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(extent));
      std::atomic<int> chunks{0};
      int32_t status = pool().parallelFor(extent, [&](int64_t begin, int64_t end) {
        EXPECT_LT(begin, end);
        ++chunks;
        for (int64_t i = begin; i < end; ++i) ++hits[static_cast<size_t>(i)];
        return 0;
      });
      EXPECT_EQ(status, 0);
      for (int64_t i = 0; i < extent; ++i) {
        ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << threads << " " << extent << " " << i;
      }
      // A few chunks per thread (so uneven work balances), never more than 8 per thread.
      EXPECT_LE(chunks.load(), std::min<int64_t>(extent, int64_t{8} * threads));
      if (extent == 0) {
        EXPECT_EQ(chunks.load(), 0);
      }
    }
  }
}

TEST_F(ThreadPoolTest, ChunksAreContiguousAndSmallEnoughToBalance) {
  pool().setNumThreads(4);
  std::mutex m;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  pool().parallelFor(1000, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(m);
    ranges.emplace_back(b, e);
    return 0;
  });
  std::sort(ranges.begin(), ranges.end());
  EXPECT_GE(ranges.size(), 16u);  // about four per thread
  int64_t next = 0;
  for (auto [b, e] : ranges) {
    EXPECT_EQ(b, next);
    EXPECT_LE(e - b, 1000 / 16) << b << ".." << e;
    next = e;
  }
  EXPECT_EQ(next, 1000);
}

// A thread that is held up does not hold the loop up: the others take its share.
TEST_F(ThreadPoolTest, FreeThreadsTakeOverUnevenWork) {
  pool().setNumThreads(2);
  std::mutex m;
  std::map<std::thread::id, int64_t> done;
  pool().parallelFor(64, [&](int64_t b, int64_t e) {
    if (b == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::lock_guard<std::mutex> lock(m);
    done[std::this_thread::get_id()] += e - b;
    return 0;
  });
  ASSERT_EQ(done.size(), 2u);
  int64_t most = std::max(done.begin()->second, std::next(done.begin())->second);
  EXPECT_GE(most, 48);  // the thread not held up did at least three quarters
}

TEST_F(ThreadPoolTest, SingleThreadRunsInlineInOneCall) {
  pool().setNumThreads(1);
  std::thread::id caller = std::this_thread::get_id();
  int calls = 0;
  pool().parallelFor(1000, [&](int64_t b, int64_t e) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    EXPECT_EQ(b, 0);
    EXPECT_EQ(e, 1000);
    ++calls;
    return 0;
  });
  EXPECT_EQ(calls, 1);
}

TEST_F(ThreadPoolTest, CallerTakesAChunkAndWorkersAreReused) {
  pool().setNumThreads(3);
  std::thread::id caller = std::this_thread::get_id();
  size_t threadsBefore = osThreadCount();
  std::mutex m;
  std::set<std::thread::id> seen;
  bool callerRan = false;
  for (int round = 0; round < 200; ++round) {
    pool().parallelFor(3, [&](int64_t, int64_t) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      std::lock_guard<std::mutex> lock(m);
      seen.insert(std::this_thread::get_id());
      if (std::this_thread::get_id() == caller) callerRan = true;
      return 0;
    });
  }
  EXPECT_TRUE(callerRan);
  EXPECT_EQ(seen.size(), 3u);  // the same two workers every time, plus the caller
  EXPECT_EQ(osThreadCount(), threadsBefore);
}

TEST_F(ThreadPoolTest, FirstNonZeroStatusIsReturned) {
  for (int threads : {1, 2, 4}) {
    pool().setNumThreads(threads);
    int32_t status =
        pool().parallelFor(100, [&](int64_t b, int64_t e) { return (b <= 60 && 60 < e) ? 17 : 0; });
    EXPECT_EQ(status, 17) << threads;
    // A later loop starts clean.
    EXPECT_EQ(pool().parallelFor(100, [](int64_t, int64_t) { return 0; }), 0);
  }
}

TEST_F(ThreadPoolTest, ExceptionsReachTheCaller) {
  for (int threads : {1, 3}) {
    pool().setNumThreads(threads);
    EXPECT_THROW(pool().parallelFor(30,
                                    [](int64_t b, int64_t e) -> int32_t {
                                      if (b <= 29 && 29 < e) throw Error("boom");
                                      return 0;
                                    }),
                 Error);
    EXPECT_EQ(pool().parallelFor(30, [](int64_t, int64_t) { return 0; }), 0);
  }
}

TEST_F(ThreadPoolTest, NestedLoopsRunInlineWithoutDeadlock) {
  pool().setNumThreads(4);
  std::atomic<int64_t> sum{0};
  pool().parallelFor(8, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      pool().parallelFor(10, [&](int64_t ib, int64_t ie) {
        sum += ie - ib;
        return 0;
      });
    }
    return 0;
  });
  EXPECT_EQ(sum.load(), 80);
}

TEST_F(ThreadPoolTest, ConcurrentCallersEachGetFullCoverage) {
  pool().setNumThreads(3);
  auto work = [&](std::atomic<int64_t>& total) {
    for (int round = 0; round < 100; ++round) {
      pool().parallelFor(1000, [&](int64_t b, int64_t e) {
        total += e - b;
        return 0;
      });
    }
  };
  std::atomic<int64_t> a{0}, b{0};
  std::thread t1([&] { work(a); });
  std::thread t2([&] { work(b); });
  t1.join();
  t2.join();
  EXPECT_EQ(a.load(), 100000);
  EXPECT_EQ(b.load(), 100000);
}

TEST_F(ThreadPoolTest, SizeComesFromKilnNumThreads) {
  ::setenv("KILN_NUM_THREADS", "3", 1);
  EXPECT_EQ(ThreadPool::defaultNumThreads(), 3);
  pool().setNumThreads(ThreadPool::defaultNumThreads());
  EXPECT_EQ(pool().numThreads(), 3);
  std::mutex m;
  std::set<std::thread::id> seen;
  pool().parallelFor(3000, [&](int64_t, int64_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::lock_guard<std::mutex> lock(m);
    seen.insert(std::this_thread::get_id());
    return 0;
  });
  EXPECT_EQ(seen.size(), 3u);

  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  // A value that is not a thread count is an error naming the variable, never silently ignored.
  for (const char* bad : {"0", "-2", "abc", "4x", "", "1025", "99999999999999999999"}) {
    ::setenv("KILN_NUM_THREADS", bad, 1);
    try {
      ThreadPool::defaultNumThreads();
      ADD_FAILURE() << "KILN_NUM_THREADS='" << bad << "' was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("KILN_NUM_THREADS is '"), std::string::npos) << e.what();
    }
  }
  ::setenv("KILN_NUM_THREADS", "1024", 1);
  EXPECT_EQ(ThreadPool::defaultNumThreads(), 1024);
  ::unsetenv("KILN_NUM_THREADS");
  EXPECT_EQ(ThreadPool::defaultNumThreads(), static_cast<int>(hw));
}

TEST_F(ThreadPoolTest, AbsurdSizesAreRefusedAndThePoolKeepsWorking) {
  for (int bad : {0, -1, ThreadPool::kMaxThreads + 1, 2147483647}) {
    EXPECT_THROW(pool().setNumThreads(bad), Error) << bad;
  }
  pool().setNumThreads(2);
  std::atomic<int64_t> sum{0};
  pool().parallelFor(100, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) sum += i;
    return 0;
  });
  EXPECT_EQ(sum.load(), 4950);
}

TEST_F(ThreadPoolTest, WorksInAForkedChild) {
  pool().setNumThreads(3);
  pool().parallelFor(10, [](int64_t, int64_t) { return 0; });  // workers exist before the fork
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::alarm(20);  // a hang fails the test instead of blocking it
    std::vector<std::atomic<int>> hits(1000);
    int32_t status = pool().parallelFor(1000, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) ++hits[static_cast<size_t>(i)];
      return 0;
    });
    bool ok = status == 0 && pool().numThreads() == 3;
    for (auto& h : hits) ok = ok && h.load() == 1;
    ::_exit(ok ? 0 : 1);
  }
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  EXPECT_TRUE(WIFEXITED(wstatus)) << "child died with signal " << WTERMSIG(wstatus);
  EXPECT_EQ(WEXITSTATUS(wstatus), 0);
  // The parent's pool is unaffected.
  EXPECT_EQ(pool().parallelFor(10, [](int64_t, int64_t) { return 0; }), 0);
}

TEST_F(ThreadPoolTest, InvalidSizeIsAnError) {
  EXPECT_THROW(pool().setNumThreads(0), Error);
  EXPECT_GE(pool().numThreads(), 1);
}

}  // namespace
}  // namespace kiln::runtime
