// The machine's fp32 FMA peak, measured: independent vector FMA chains on several threads.
#pragma once

namespace kiln::bench {

struct Isa {
  const char* name;  // avx512, avx2 or sse
  int lanes;
  float (*run)(long iters);
};

// The widest vector FMA the CPU running this has.
Isa detectIsa();
// GFLOP/s of THREADS threads running ISA's chains at once for about SECONDS (best of one run).
double measurePeak(const Isa& isa, int threads, double seconds);
// The best of three such runs with the detected ISA.
double measurePeak(int threads, double seconds);

}  // namespace kiln::bench
