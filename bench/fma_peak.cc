// Prints the machine's fp32 FMA peak (fma_chains.h) for 1..MAX_THREADS threads, one JSON line
// each: {"threads": T, "gflops": G, "isa": "avx512"}.
// Usage: kiln_fma_peak [MAX_THREADS] [SECONDS_PER_RUN]
#include <cstdio>
#include <cstdlib>

#include "fma_chains.h"

int main(int argc, char** argv) {
  int maxThreads = argc > 1 ? std::atoi(argv[1]) : 2;
  double seconds = argc > 2 ? std::atof(argv[2]) : 0.5;
  if (maxThreads < 1 || seconds <= 0) {
    std::fprintf(stderr, "usage: kiln_fma_peak [MAX_THREADS >= 1] [SECONDS > 0]\n");
    return 2;
  }
  const char* isa = kiln::bench::detectIsa().name;
  for (int t = 1; t <= maxThreads; ++t) {
    std::printf("{\"threads\": %d, \"gflops\": %.1f, \"isa\": \"%s\"}\n", t,
                kiln::bench::measurePeak(t, seconds), isa);
  }
  return 0;
}
