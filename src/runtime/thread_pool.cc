// The runtime's persistent worker pool. Workers spin briefly, then sleep on a condition variable
// between loops, so a parallel loop costs a wake-up, never a thread creation.
#include "kiln/runtime/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "kiln/support/error.h"

namespace kiln::runtime {

namespace {

// Back-to-back kernels launch loops microseconds apart; a short spin catches the next loop
// without a sleep/wake round trip, and is bounded so idle workers do not burn a shared CPU.
constexpr int kSpinIterations = 2000;

// True on pool workers and on a caller while it runs its own chunk: nested loops run inline
// instead of waiting for workers that are busy with the outer loop.
thread_local bool tInsideLoop = false;

// Set in a child process after fork(): the pool's workers and locks belong to the parent.
std::atomic<bool> gForkedChild{false};

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield");
#endif
}

// Iterations a participant takes at a time: about four grabs per participant, so a thread that
// finishes early takes over work of one that is slow, while neighbouring iterations (which often
// share data) stay on one thread.
int64_t grainOf(int64_t extent, int64_t participants) {
  return std::max<int64_t>(1, extent / (participants * 4));
}

}  // namespace

struct ThreadPool::Impl {
  std::mutex launchMutex;  // one loop at a time; concurrent callers run inline
  std::mutex m;            // guards the job fields and orders the condition variables
  std::condition_variable wake;
  std::condition_variable done;
  std::vector<std::thread> workers;
  bool stopping = false;                // guarded by m
  std::atomic<uint64_t> generation{0};  // written under m, spun on without it

  // The running loop; written under m before `generation` moves.
  const std::function<int32_t(int64_t, int64_t)>* fn = nullptr;
  int64_t extent = 0;
  int64_t numChunks = 0;  // participants in the running loop, the caller included
  int64_t grain = 1;
  std::atomic<int64_t> next{0};     // first iteration not yet taken
  std::atomic<int64_t> pending{0};  // participating workers not yet finished
  std::atomic<int32_t> status{0};
  std::exception_ptr error;  // guarded by m

  // Takes GRAIN iterations at a time until none are left (or one failed).
  void runChunks() {
    for (;;) {
      int64_t begin = next.fetch_add(grain);
      if (begin >= extent || status.load() != 0) return;
      try {
        int32_t s = (*fn)(begin, std::min(extent, begin + grain));
        int32_t zero = 0;
        if (s != 0) status.compare_exchange_strong(zero, s);
      } catch (...) {
        std::lock_guard<std::mutex> lock(m);
        if (!error) error = std::current_exception();
        status.store(-1);
      }
    }
  }

  void workerLoop(int64_t index, uint64_t seen) {
    tInsideLoop = true;
    for (;;) {
      for (int i = 0; i < kSpinIterations && generation.load() == seen; ++i) cpuRelax();
      std::unique_lock<std::mutex> lock(m);
      wake.wait(lock, [&] { return stopping || generation.load() != seen; });
      if (stopping) return;
      seen = generation.load();
      // A worker may skip a generation only when it had no chunk in it: otherwise `pending`
      // keeps that loop open until the worker has run its chunk.
      if (index >= numChunks) continue;
      lock.unlock();
      runChunks();
      if (pending.fetch_sub(1) == 1) {
        std::lock_guard<std::mutex> relock(m);  // the caller may be between its check and wait
        done.notify_one();
      }
    }
  }

  // Called with no loop running; workers start from the current generation so they never
  // replay a finished loop.
  void start(int n) {
    stopping = false;
    uint64_t current = generation.load();
    for (int i = 1; i < n; ++i) {
      try {
        workers.emplace_back([this, i, current] { workerLoop(i, current); });
      } catch (const std::system_error& e) {
        // The system's thread limit: keep a working (single-threaded) pool and say why.
        stop();
        throw Error(strCat("cannot start ", n, " threads: the system refused thread ", i + 1, " (",
                           e.what(), "); ask for fewer"));
      }
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(m);
      stopping = true;
    }
    wake.notify_all();
    for (std::thread& t : workers) t.join();
    workers.clear();
  }

  int32_t run(int64_t n, const std::function<int32_t(int64_t, int64_t)>& body) {
    {
      std::lock_guard<std::mutex> lock(m);
      fn = &body;
      extent = n;
      numChunks = std::min<int64_t>(n, static_cast<int64_t>(workers.size()) + 1);
      grain = grainOf(n, numChunks);
      next.store(0);
      pending.store(numChunks - 1);
      status.store(0);
      error = nullptr;
      generation.fetch_add(1);
    }
    wake.notify_all();

    tInsideLoop = true;
    runChunks();
    tInsideLoop = false;

    for (int i = 0; i < kSpinIterations && pending.load() != 0; ++i) cpuRelax();
    std::unique_lock<std::mutex> lock(m);
    done.wait(lock, [&] { return pending.load() == 0; });
    fn = nullptr;
    if (error) std::rethrow_exception(std::exchange(error, nullptr));
    return status.load();
  }
};

int ThreadPool::defaultNumThreads() {
  if (const char* env = std::getenv("KILN_NUM_THREADS")) {
    char* end = nullptr;
    errno = 0;
    long n = std::strtol(env, &end, 10);
    if (end == env || *end != '\0' || errno != 0 || n < 1 || n > kMaxThreads) {
      throw Error(strCat("KILN_NUM_THREADS is '", std::string(env).substr(0, 40),
                         "'; expected a whole number of threads from 1 to ", kMaxThreads,
                         " (or unset it to use every core)"));
    }
    return static_cast<int>(n);
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

ThreadPool& ThreadPool::global() {
  static ThreadPool pool;
  return pool;
}

ThreadPool::ThreadPool() {
  int n = defaultNumThreads();  // may throw: nothing is allocated yet
  impl_ = new Impl;
  ::pthread_atfork(nullptr, nullptr, [] { gForkedChild.store(true); });
  try {
    impl_->start(n);
  } catch (const Error&) {
    delete impl_;
    throw;
  }
}

ThreadPool::~ThreadPool() {
  if (gForkedChild.load()) return;  // the workers are the parent's: nothing here to join
  impl_->stop();
  delete impl_;
}

// In a forked child the old Impl's threads do not exist and its locks may be held forever, so it
// is abandoned (deliberately leaked) and a fresh pool of the same size takes over.
ThreadPool::Impl& ThreadPool::live() {
  if (gForkedChild.exchange(false)) {
    int n = static_cast<int>(impl_->workers.size()) + 1;
    impl_ = new Impl;
    impl_->start(n);
  }
  return *impl_;
}

void ThreadPool::setNumThreads(int n) {
  if (n < 1 || n > kMaxThreads) {
    throw Error(strCat("thread pool size must be from 1 to ", kMaxThreads, ", got ", n));
  }
  Impl& p = live();
  std::lock_guard<std::mutex> launch(p.launchMutex);
  if (static_cast<size_t>(n) == p.workers.size() + 1) return;
  p.stop();
  p.start(n);
}

int ThreadPool::numThreads() const {
  Impl& p = const_cast<ThreadPool*>(this)->live();
  std::lock_guard<std::mutex> launch(p.launchMutex);
  return static_cast<int>(p.workers.size()) + 1;
}

int32_t ThreadPool::parallelFor(int64_t extent,
                                const std::function<int32_t(int64_t, int64_t)>& fn) {
  if (extent <= 0) return 0;
  Impl& p = live();
  std::unique_lock<std::mutex> launch(p.launchMutex, std::defer_lock);
  if (tInsideLoop || extent == 1 || !launch.try_lock() || p.workers.empty()) return fn(0, extent);
  return p.run(extent, fn);
}

}  // namespace kiln::runtime
