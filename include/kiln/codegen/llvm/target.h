// Code generation targets: an LLVM triple, CPU and feature string, parsed from "llvm -mcpu=...".
#pragma once

#include <string>

#include "kiln/support/json.h"

namespace kiln::codegen {

struct Target {
  std::string triple;    // "x86_64-pc-linux-gnu"
  std::string cpu;       // "znver5"
  std::string features;  // "+avx512f,+fma,..."
  // kiln's vector width: 0 means the widest the features allow; 128/256/512 narrows it (e.g.
  // 256-bit vectors on an AVX-512 CPU where they are faster).
  int vectorBits = 0;

  // The machine kiln runs on: LLVM's host triple, CPU name and detected features.
  static Target host();
  // "llvm", "llvm -mcpu=skylake-avx512", "llvm -mtriple=aarch64-linux-gnu -mattr=+neon",
  // "llvm -vector-bits=256";
  // unspecified parts come from the host when the triple is the host's. Throws kiln::Error
  // on an unknown key, triple or CPU, naming what was received and what is accepted.
  static Target parse(const std::string& text);

  // fp32 lanes of kiln's vectors: the widest the features enable (16, 8, 4 or 1), or
  // vectorBits / 32 when that is set.
  int vectorLanes() const;
  // The vector instruction set kiln generates for: avx512, avx512vl (256-bit vectors with
  // AVX-512's registers), avx2, avx, sse, neon or scalar.
  std::string isaName() const;
  // Architectural vector registers of that instruction set (32 for AVX-512 and AArch64, 16 for
  // AVX/SSE).
  int vectorRegisters() const;
  std::string str() const;  // "llvm -mtriple=... -mcpu=... -mattr=..."
  Json toJson() const;
};

}  // namespace kiln::codegen
