// Independent chains of vector FMAs at the widest width the CPU has, timed on several threads at
// once: the machine's fp32 FMA peak, the yardstick of the benchmarks.
#include "fma_chains.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace kiln::bench {
namespace {

constexpr int kChains = 16;  // more than FMA units x latency on every current x86 core

// Runs ITERS rounds of kChains FMAs; returns a value that depends on all of them.
__attribute__((target("avx512f"))) float chainsAvx512(long iters) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (long n = 0; n < iters; ++n) {
#pragma GCC unroll 16
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  // Stored and summed by hand: g++ 12's _mm512_reduce_add_ps trips its own -Wuninitialized.
  alignas(64) float lanes[16];
  float s = 0;
  for (int i = 0; i < kChains; ++i) {
    _mm512_store_ps(lanes, acc[i]);
    for (float v : lanes) s += v;
  }
  return s;
}

__attribute__((target("avx2,fma"))) float chainsAvx2(long iters) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (long n = 0; n < iters; ++n) {
#pragma GCC unroll 16
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  alignas(32) float lanes[8];
  float s = 0;
  for (int i = 0; i < kChains; ++i) {
    _mm256_store_ps(lanes, acc[i]);
    for (float v : lanes) s += v;
  }
  return s;
}

float chainsSse(long iters) {
  __m128 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm_set1_ps(static_cast<float>(i));
  const __m128 a = _mm_set1_ps(0.999999f), b = _mm_set1_ps(1e-7f);
  for (long n = 0; n < iters; ++n) {
#pragma GCC unroll 16
    for (int i = 0; i < kChains; ++i) acc[i] = _mm_add_ps(_mm_mul_ps(acc[i], a), b);
  }
  alignas(16) float lanes[4];
  float s = 0;
  for (int i = 0; i < kChains; ++i) {
    _mm_store_ps(lanes, acc[i]);
    for (float v : lanes) s += v;
  }
  return s;
}

}  // namespace

Isa detectIsa() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {"avx512", 16, chainsAvx512};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return {"avx2", 8, chainsAvx2};
  }
  return {"sse", 4, chainsSse};
}

double measurePeak(const Isa& isa, int threads, double seconds) {
  long iters = 1 << 16;
  for (;;) {  // calibrate on one thread
    auto t0 = std::chrono::steady_clock::now();
    volatile float sink = isa.run(iters);
    (void)sink;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s > seconds / 4) {
      iters = static_cast<long>(static_cast<double>(iters) * seconds / s);
      break;
    }
    iters *= 2;
  }
  std::atomic<int> ready{0};
  std::vector<double> elapsed(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < threads) {
      }
      auto t0 = std::chrono::steady_clock::now();
      volatile float sink = isa.run(iters);
      (void)sink;
      elapsed[static_cast<size_t>(t)] =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    });
  }
  for (std::thread& t : pool) t.join();
  double flops = 2.0 * kChains * isa.lanes * static_cast<double>(iters);
  double total = 0;
  for (double s : elapsed) total += flops / s;
  return total / 1e9;
}

double measurePeak(int threads, double seconds) {
  Isa isa = detectIsa();
  double best = 0;
  for (int r = 0; r < 3; ++r) best = std::max(best, measurePeak(isa, threads, seconds));
  return best;
}

}  // namespace kiln::bench
