// The runtime's one thread pool: persistent workers, sized by KILN_NUM_THREADS, no per-call
// threads.
#pragma once

#include <cstdint>
#include <functional>

namespace kiln::runtime {

class ThreadPool {
 public:
  // The process-wide pool. Its size is KILN_NUM_THREADS if set, else the hardware concurrency.
  static ThreadPool& global();

  // Resizes the pool (1 = run everything on the calling thread). Not while a loop is running.
  void setNumThreads(int n);
  int numThreads() const;
  // KILN_NUM_THREADS when it is a positive integer, else the hardware concurrency (at least 1).
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
