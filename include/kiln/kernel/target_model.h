// What the kernel layer knows of the machine it generates code for: enough to choose register
// tiles and cache blocks analytically, without measuring anything at compile time. The driver
// fills it from the code generation target; tests pin it so lowered kernels do not depend on the
// machine that runs them.
#pragma once

#include <cstdint>
#include <string>

namespace kiln::kernel {

struct TargetModel {
  // Names micro-kernels ("f32_gemm_6x64_avx512"): avx512, avx2, avx, sse, neon or scalar.
  std::string isa = "avx512";
  int lanes = 16;            // fp32 lanes of one vector register (1: no vector unit)
  int vectorRegisters = 32;  // architectural vector registers
  int fmaPerCycle = 2;       // vector FMA instructions issued per cycle
  int fmaLatency = 4;        // cycles from an FMA's inputs to its result
  int loadsPerCycle = 2;     // vector loads per cycle
  // Whether an FMA can take its broadcast operand from memory (x86: embedded or one temporary
  // broadcast register); without it (NEON's by-element FMA) each tile row's A value occupies a
  // register of its own.
  bool broadcastFromMemory = true;
  // L2 cache per core: bounds the packed weights a GEMM streams per K block.
  int64_t l2Bytes = int64_t{1024} * 1024;

  // Accumulators in flight needed to keep every FMA unit busy despite the FMA latency.
  int minAccumulators() const { return fmaPerCycle * fmaLatency; }

  static TargetModel avx512() { return {}; }
  static TargetModel avx2() { return {"avx2", 8, 16, 2, 4, 2, true, int64_t{256} * 1024}; }
  static TargetModel neon() { return {"neon", 4, 32, 2, 4, 2, false, int64_t{1024} * 1024}; }
  static TargetModel scalar() { return {"scalar", 1, 16, 1, 4, 1, true, int64_t{256} * 1024}; }
};

}  // namespace kiln::kernel
