// Refusing an artifact built for another architecture or for CPU features this machine lacks,
// so the user gets an error naming them instead of an illegal-instruction crash in a kernel.
#include "kiln/runtime/host_cpu.h"

#include <utility>

#include "kiln/support/error.h"
#include "kiln/support/split.h"

namespace kiln::runtime {
namespace {

using FeatureTable = std::vector<std::pair<std::string, bool>>;

const FeatureTable& queryableFeatures() {
#if defined(__x86_64__) || defined(__i386__)
#define KILN_CPU_FEATURE(name) \
  { name, __builtin_cpu_supports(name) != 0 }
  static const FeatureTable kTable = {
    KILN_CPU_FEATURE("sse"),
    KILN_CPU_FEATURE("sse2"),
    KILN_CPU_FEATURE("sse3"),
    KILN_CPU_FEATURE("ssse3"),
    KILN_CPU_FEATURE("sse4.1"),
    KILN_CPU_FEATURE("sse4.2"),
    KILN_CPU_FEATURE("popcnt"),
    KILN_CPU_FEATURE("avx"),
    KILN_CPU_FEATURE("avx2"),
    KILN_CPU_FEATURE("fma"),
    KILN_CPU_FEATURE("bmi"),
    KILN_CPU_FEATURE("bmi2"),
    KILN_CPU_FEATURE("gfni"),
    KILN_CPU_FEATURE("vpclmulqdq"),
    KILN_CPU_FEATURE("avx512f"),
    KILN_CPU_FEATURE("avx512vl"),
    KILN_CPU_FEATURE("avx512bw"),
    KILN_CPU_FEATURE("avx512dq"),
    KILN_CPU_FEATURE("avx512cd"),
    KILN_CPU_FEATURE("avx512vbmi"),
    KILN_CPU_FEATURE("avx512vbmi2"),
    KILN_CPU_FEATURE("avx512ifma"),
    KILN_CPU_FEATURE("avx512vnni"),
    KILN_CPU_FEATURE("avx512bitalg"),
    KILN_CPU_FEATURE("avx512vpopcntdq"),
    KILN_CPU_FEATURE("avx512bf16"),
#if !defined(__clang__) || __clang_major__ > 14
    // Names clang 14 rejects in __builtin_cpu_supports (gcc and clang 19 take them); a feature
    // missing from the table is not checked, so a clang-14 build just checks fewer.
    KILN_CPU_FEATURE("f16c"),
    KILN_CPU_FEATURE("vaes"),
    KILN_CPU_FEATURE("avx512fp16"),
    KILN_CPU_FEATURE("avxvnni"),
    KILN_CPU_FEATURE("amx-tile"),
    KILN_CPU_FEATURE("amx-bf16"),
    KILN_CPU_FEATURE("amx-int8"),
#endif
  };
#undef KILN_CPU_FEATURE
#else
  static const FeatureTable kTable;
#endif
  return kTable;
}

std::string archOfTriple(const std::string& triple) {
  std::string arch = triple.substr(0, triple.find('-'));
  if (arch == "amd64") return "x86_64";
  if (arch == "arm64") return "aarch64";
  return arch;
}

}  // namespace

std::string hostArch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__arm__)
  return "arm";
#elif defined(__riscv) && __riscv_xlen == 64
  return "riscv64";
#else
  return "unknown";
#endif
}

std::vector<std::string> missingCpuFeatures(const std::string& features) {
  std::vector<std::string> missing;
  for (const std::string& entry : splitOn(features, ',')) {
    if (entry.size() < 2 || entry[0] != '+') continue;
    for (const auto& [name, present] : queryableFeatures()) {
      if (name == entry.substr(1) && !present) missing.push_back(name);
    }
  }
  return missing;
}

void checkTargetRunsHere(const Json& target, const std::string& origin) {
  if (!target.isObject()) return;
  if (target.contains("triple") && target.at("triple").isString()) {
    const std::string& triple = target.at("triple").asString();
    std::string arch = archOfTriple(triple);
    if (arch != hostArch()) {
      throw Error(strCat("'", origin, "' was compiled for ", arch, " (target triple ", triple,
                         "); this machine is ", hostArch(),
                         ": recompile it with kiln compile --target for this machine"));
    }
  }
  if (target.contains("features") && target.at("features").isString()) {
    std::vector<std::string> missing = missingCpuFeatures(target.at("features").asString());
    if (!missing.empty()) {
      std::string list;
      for (const std::string& f : missing) list += (list.empty() ? "" : ", ") + f;
      std::string cpu =
          target.contains("cpu") && target.at("cpu").isString() ? target.at("cpu").asString() : "?";
      throw Error(strCat("'", origin, "' was compiled for CPU '", cpu,
                         "' and uses instructions this CPU lacks: ", list,
                         "; recompile it with a --target this CPU supports (the default, the "
                         "host CPU, always does)"));
    }
  }
}

}  // namespace kiln::runtime
