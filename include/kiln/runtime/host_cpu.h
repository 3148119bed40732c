// What the CPU this runtime runs on can execute, checked against an artifact's target.
#pragma once

#include <string>
#include <vector>

#include "kiln/support/json.h"

namespace kiln::runtime {

// The architecture this runtime was built for: "x86_64", "aarch64", ...
std::string hostArch();
// The "+feature" entries of an LLVM feature string ("+avx2,+fma,-xop") that this CPU lacks,
// among the instruction-set features the runtime can query (on x86-64: the SSE/AVX/AVX-512/AMX
// families, FMA, F16C, BMI, GFNI, VAES ...). Unknown names are not reported.
std::vector<std::string> missingCpuFeatures(const std::string& features);
// Throws kiln::Error naming ORIGIN, the target and what this machine lacks when code built for
// TARGET ({"triple", "cpu", "features"}) cannot run here. Fields that are absent are not checked.
void checkTargetRunsHere(const Json& target, const std::string& origin);

}  // namespace kiln::runtime
