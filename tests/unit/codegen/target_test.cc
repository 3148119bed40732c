// Checks target parsing against LLVM's tables: valid strings, defaults from the host, clear errors.
#include "kiln/codegen/llvm/target.h"

#include <gtest/gtest.h>

#include "kiln/support/error.h"

namespace kiln::codegen {
namespace {

std::string parseError(const std::string& text) {
  try {
    Target::parse(text);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for '" << text << "'";
  return "";
}

TEST(Target, HostIsDetected) {
  Target host = Target::host();
  EXPECT_NE(host.triple.find("linux"), std::string::npos) << host.triple;
  EXPECT_FALSE(host.cpu.empty());
  EXPECT_FALSE(host.features.empty());
  EXPECT_GE(host.vectorLanes(), 4);  // every x86-64 and AArch64 host has 128-bit vectors
}

TEST(Target, PlainLlvmIsTheHost) {
  Target t = Target::parse("llvm");
  Target host = Target::host();
  EXPECT_EQ(t.triple, host.triple);
  EXPECT_EQ(t.cpu, host.cpu);
  EXPECT_EQ(t.features, host.features);
}

TEST(Target, ExplicitCpuDeterminesVectorWidth) {
  EXPECT_EQ(Target::parse("llvm -mcpu=skylake-avx512").vectorLanes(), 16);
  EXPECT_EQ(Target::parse("llvm -mcpu=haswell").vectorLanes(), 8);
  EXPECT_EQ(Target::parse("llvm -mcpu=x86-64").vectorLanes(), 4);
  EXPECT_EQ(Target::parse("llvm -mcpu=haswell -mattr=-avx").vectorLanes(), 4);
  Target t = Target::parse("llvm -mcpu=haswell");
  EXPECT_EQ(t.cpu, "haswell");
  EXPECT_EQ(t.features, "");
}

TEST(Target, VectorBitsNarrowTheVectorsKilnUses) {
  Target t = Target::parse("llvm -mcpu=znver4 -vector-bits=256");
  EXPECT_EQ(t.vectorLanes(), 8);
  EXPECT_EQ(t.isaName(), "avx512vl");  // 256-bit vectors, AVX-512's 32 registers
  EXPECT_EQ(t.vectorRegisters(), 32);
  EXPECT_EQ(Target::parse(t.str()).vectorLanes(), 8);  // round-trips
  EXPECT_EQ(Target::parse("llvm -mcpu=znver4").isaName(), "avx512");
  EXPECT_EQ(Target::parse("llvm -mcpu=haswell").isaName(), "avx2");
  EXPECT_EQ(Target::parse("llvm -mcpu=haswell").vectorRegisters(), 16);
  EXPECT_EQ(Target::parse("llvm -mtriple=aarch64-linux-gnu").isaName(), "neon");
  auto message = [](const std::string& text) {
    try {
      Target::parse(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("llvm -mcpu=haswell -vector-bits=512").find("wider than the 256-bit"),
            std::string::npos);
  EXPECT_NE(message("llvm -vector-bits=300").find("expected 128, 256 or 512"), std::string::npos);
}

TEST(Target, ForeignTriples) {
  Target arm64 = Target::parse("llvm -mtriple=aarch64-linux-gnu");
  EXPECT_EQ(arm64.triple, "aarch64-unknown-linux-gnu");
  EXPECT_EQ(arm64.cpu, "generic");
  EXPECT_EQ(arm64.vectorLanes(), 4);
  EXPECT_EQ(Target::parse("llvm -mtriple=aarch64-linux-gnu -mattr=-neon").vectorLanes(), 1);
  Target a72 = Target::parse("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+neon");
  EXPECT_EQ(a72.cpu, "cortex-a72");
  EXPECT_EQ(a72.features, "+neon");
  EXPECT_EQ(Target::parse("llvm -mtriple=armv7a-linux-gnueabihf -mattr=neon").vectorLanes(), 4);
}

TEST(Target, StrRoundTrips) {
  for (const char* text :
       {"llvm", "llvm -mcpu=skylake-avx512",
        "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a55 -mattr=+neon,+dotprod"}) {
    Target t = Target::parse(text);
    Target back = Target::parse(t.str());
    EXPECT_EQ(back.triple, t.triple) << text;
    EXPECT_EQ(back.cpu, t.cpu) << text;
    EXPECT_EQ(back.features, t.features) << text;
  }
}

TEST(Target, ToJsonNamesEveryPart) {
  Target t = Target::parse("llvm -mtriple=aarch64-linux-gnu -mattr=+neon");
  Json j = t.toJson();
  EXPECT_EQ(j.at("triple").asString(), "aarch64-unknown-linux-gnu");
  EXPECT_EQ(j.at("cpu").asString(), "generic");
  EXPECT_EQ(j.at("features").asString(), "+neon");
  EXPECT_EQ(j.at("vector_lanes").asInt(), 4);
}

TEST(Target, RejectsBadStrings) {
  EXPECT_NE(parseError("").find("expected 'llvm'"), std::string::npos);
  EXPECT_NE(parseError("cuda").find("'cuda'"), std::string::npos);
  std::string cpu = parseError("llvm -mcpu=notacpu");
  EXPECT_NE(cpu.find("notacpu"), std::string::npos);
  EXPECT_NE(cpu.find("skylake-avx512"), std::string::npos) << "should list known CPUs: " << cpu;
  EXPECT_NE(parseError("llvm -mtriple=foo-bar-baz").find("foo-bar-baz"), std::string::npos);
  EXPECT_NE(parseError("llvm -mfoo=1").find("-mfoo=1"), std::string::npos);
  EXPECT_NE(parseError("llvm -mcpu").find("-mcpu"), std::string::npos);
  EXPECT_NE(parseError("llvm -mcpu=").find("empty"), std::string::npos);
  EXPECT_NE(parseError("llvm -mattr=+notafeature").find("notafeature"), std::string::npos);
  EXPECT_NE(parseError("llvm -mcpu=haswell -mcpu=znver4").find("twice"), std::string::npos);
  EXPECT_NE(parseError("llvm -mtriple=aarch64-linux-gnu -mcpu=haswell").find("haswell"),
            std::string::npos);
}

// Triples LLVM knows but kiln cannot package are refused at once, not with a linker's message.
TEST(Target, TriplesThatCannotMakeAnArtifactAreExplained) {
  for (const char* triple :
       {"x86_64-apple-darwin", "x86_64-pc-windows-msvc", "wasm32-unknown-unknown"}) {
    std::string msg = parseError(std::string("llvm -mtriple=") + triple);
    EXPECT_NE(msg.find("ELF shared libraries"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("ld.lld"), std::string::npos) << msg;
  }
  std::string msg = parseError("llvm -mtriple=mips-unknown-linux-gnu");
  EXPECT_NE(msg.find("big-endian"), std::string::npos) << msg;
  EXPECT_NO_THROW(Target::parse("llvm -mtriple=riscv64-unknown-linux-gnu"));
}

}  // namespace
}  // namespace kiln::codegen
