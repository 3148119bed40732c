// The loader's check that an artifact's target can run on this machine.
#include "kiln/runtime/host_cpu.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "kiln/support/error.h"

namespace kiln::runtime {
namespace {

TEST(HostCpu, ArchitectureMismatchIsAnError) {
  Json target = Json::parse(R"({"triple":"aarch64-unknown-linux-gnu","cpu":"cortex-a72"})");
  if (hostArch() == "aarch64") target = Json::parse(R"({"triple":"x86_64-pc-linux-gnu"})");
  try {
    checkTargetRunsHere(target, "m.so");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("m.so"), std::string::npos) << msg;
    EXPECT_NE(msg.find(hostArch()), std::string::npos) << msg;
  }
}

TEST(HostCpu, MatchingArchitecturePasses) {
  std::string triple = hostArch() + "-unknown-linux-gnu";
  EXPECT_NO_THROW(checkTargetRunsHere(Json::parse(R"({"triple":")" + triple + R"("})"), "m.so"));
  EXPECT_NO_THROW(checkTargetRunsHere(Json(), "m.so"));
}

#if defined(__x86_64__)
TEST(HostCpu, FeaturesThisCpuLacksAreNamed) {
  EXPECT_TRUE(missingCpuFeatures("+sse2,+sse,-avx512fp16,+no-such-feature").empty());
  // Whatever this CPU is, the report agrees with the compiler's own query.
  std::vector<std::string> missing = missingCpuFeatures("+avx512f,+avx512fp16,+amx-tile");
  EXPECT_EQ(std::count(missing.begin(), missing.end(), "avx512f"),
            __builtin_cpu_supports("avx512f") ? 0 : 1);
  // clang 14 (clang-tidy-14's front end) rejects these two names in __builtin_cpu_supports, and
  // host_cpu.cc leaves them unchecked there.
#if !defined(__clang__) || __clang_major__ > 14
  EXPECT_EQ(std::count(missing.begin(), missing.end(), "amx-tile"),
            __builtin_cpu_supports("amx-tile") ? 0 : 1);
  if (!__builtin_cpu_supports("avx512fp16")) {
    Json target = Json::parse(
        R"({"triple":"x86_64-pc-linux-gnu","cpu":"sapphirerapids","features":"+avx2,+avx512fp16"})");
    try {
      checkTargetRunsHere(target, "h.so");
      FAIL() << "expected an error";
    } catch (const Error& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find("avx512fp16"), std::string::npos) << msg;
      EXPECT_NE(msg.find("sapphirerapids"), std::string::npos) << msg;
    }
  }
#endif
}
#endif

}  // namespace
}  // namespace kiln::runtime
