// The runtime's one thread pool: persistent workers, sized by KILN_NUM_THREADS, no per-call
// threads.
#pragma once

#include <cstdint>
#include <functional>

namespace kiln::runtime {

class ThreadPool {
 public:
  // More threads than this is a mistake (a typo, an overflow), not a configuration.
  static constexpr int kMaxThreads = 1024;

  // The process-wide pool. Its size is KILN_NUM_THREADS if set, else the hardware concurrency.
  static ThreadPool& global();

  // Resizes the pool (1 = run everything on the calling thread). Not while a loop is running.
  // Throws kiln::Error when N is outside 1..kMaxThreads or the threads cannot be started (the pool
  // then runs everything on the calling thread).
  void setNumThreads(int n);
  int numThreads() const;
  // KILN_NUM_THREADS when set, else the hardware concurrency (at least 1). Throws kiln::Error
  // when KILN_NUM_THREADS is set to anything but a whole number from 1 to kMaxThreads.
  static int defaultNumThreads();

  // Calls fn(begin, end) on contiguous chunks covering [0, extent), each taken by whichever
  // thread is free (the calling thread included), a few chunks per thread so that uneven
  // iterations balance out; returns when all are done. Returns the first non-zero status; chunks
  // not yet started when one fails are skipped.
  int32_t parallelFor(int64_t extent, const std::function<int32_t(int64_t, int64_t)>& fn);

  ~ThreadPool();

 private:
  ThreadPool();
  struct Impl;
  Impl& live();  // impl_, replaced first when this process is a fork() child
  Impl* impl_;
};

}  // namespace kiln::runtime
