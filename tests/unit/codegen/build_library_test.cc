// Checks the library as a whole: embedded artifact and API symbols, every optimisation level,
// IR dumps, cross-compilation, compile time of a model-sized module, and linker failures.
#include "kiln/codegen/llvm/build_library.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "compiled_library.h"
#include "kiln/support/error.h"

namespace kiln::codegen {
namespace {

using namespace tir;
using testing::CompiledLibrary;
using testing::rowSoftmax;
using testing::ScratchDir;

// y[i] = max(x[i] * s + 1, 0) over N elements, vectorized.
PrimFunc affineRelu(const std::string& name, int64_t n, double s) {
  Buffer x = makeBuffer("x", DataType::float32(), {n});
  Buffer y = makeBuffer("y", DataType::float32(), {n});
  Expr i = var("i");
  Stmt body = forLoop(i, intImm(0), intImm(n), ForKind::kVectorized,
                      store(y, i, max(load(x, i) * floatImm(s) + floatImm(1), floatImm(0))));
  return {name, {x, y}, body};
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(BuildLibrary, EmbedsTheArtifactAndAnEmptyApiSlot) {
  std::string artifact;
  for (int i = 0; i < 100000; ++i) artifact.push_back(static_cast<char>((i * 131) % 256));
  CompiledLibrary lib({affineRelu("k", 8, 2)}, 3, artifact);
  auto* data = static_cast<const char*>(lib.symbol(KILN_SYMBOL_ARTIFACT));
  auto* size = static_cast<const uint64_t*>(lib.symbol(KILN_SYMBOL_ARTIFACT_SIZE));
  ASSERT_NE(data, nullptr);
  ASSERT_NE(size, nullptr);
  ASSERT_EQ(*size, artifact.size());
  EXPECT_EQ(std::memcmp(data, artifact.data(), artifact.size()), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % 64, 0u);
  auto** api = static_cast<void**>(lib.symbol(KILN_SYMBOL_BACKEND_API));
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(*api, nullptr);
}

TEST(BuildLibrary, EmptyArtifactAndNoKernels) {
  CompiledLibrary lib({}, 3, "");
  auto* size = static_cast<const uint64_t*>(lib.symbol(KILN_SYMBOL_ARTIFACT_SIZE));
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(*size, 0u);
}

TEST(BuildLibrary, EveryOptLevelComputesTheSame) {
  constexpr int64_t kN = 517;
  std::vector<float> x = testing::randomFloats(kN, -3, 3, 31);
  for (int level = 0; level <= 3; ++level) {
    CompiledLibrary lib({affineRelu("a", kN, 1.5), affineRelu("b", kN, -0.25)}, level);
    std::vector<float> ya(kN), yb(kN);
    ASSERT_EQ(lib.call("a", {x.data(), ya.data()}), 0);
    ASSERT_EQ(lib.call("b", {x.data(), yb.data()}), 0);
    for (int64_t i = 0; i < kN; ++i) {
      ASSERT_NEAR(ya[i], std::max(x[i] * 1.5f + 1, 0.0f), 1e-5f) << "O" << level;
      ASSERT_NEAR(yb[i], std::max(x[i] * -0.25f + 1, 0.0f), 1e-5f) << "O" << level;
    }
  }
}

TEST(BuildLibrary, RejectsAnOptLevelOutOfRange) {
  ScratchDir dir;
  BuildOptions options;
  options.target = Target::host();
  options.optLevel = 4;
  EXPECT_THROW(buildSharedLibrary({}, "", options, dir.file("x.so")), Error);
}

TEST(BuildLibrary, DumpsOptimisedIr) {
  ScratchDir dir;
  BuildOptions options;
  options.target = Target::host();
  options.dumpLlvmPath = dir.file("kernels.ll");
  buildSharedLibrary({affineRelu("dumped_kernel", 64, 2)}, "abc", options, dir.file("lib.so"));
  std::string ir = readAll(options.dumpLlvmPath);
  EXPECT_NE(ir.find("@dumped_kernel(ptr"), std::string::npos) << ir;
  EXPECT_NE(ir.find(KILN_SYMBOL_BACKEND_API), std::string::npos);
  // Vectorized at the target's width.
  std::string vec = "<" + std::to_string(options.target.vectorLanes()) + " x float>";
  EXPECT_NE(ir.find(vec), std::string::npos) << "expected " << vec << " in\n" << ir;
}

TEST(BuildLibrary, LinkerFailureIsAnErrorWithItsMessage) {
  BuildOptions options;
  options.target = Target::host();
  try {
    buildSharedLibrary({affineRelu("k", 8, 2)}, "", options, "/nonexistent-dir/for/kiln/lib.so");
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("/nonexistent-dir/for/kiln/lib.so"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cannot open output file"), std::string::npos) << msg;
  }
}

TEST(BuildLibrary, OutputIsReplacedAtomically) {
  ScratchDir dir;
  std::string path = dir.file("lib.so");
  { std::ofstream(path) << "old"; }
  BuildOptions options;
  options.target = Target::host();
  buildSharedLibrary({affineRelu("k", 8, 2)}, "new", options, path);
  EXPECT_EQ(readAll(path).substr(0, 4),
            "\x7f"
            "ELF");
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  dlclose(h);
}

TEST(BuildLibrary, CrossCompilesForAArch64) {
  ScratchDir dir;
  BuildOptions options;
  options.target = Target::parse("llvm -mtriple=aarch64-linux-gnu -mattr=+neon");
  std::string path = dir.file("arm64.so");
  try {
    buildSharedLibrary({affineRelu("k", 100, 2)}, "payload", options, path);
  } catch (const Error& e) {
    // Without any AArch64 linker the error must say what to install.
    EXPECT_NE(std::string(e.what()).find("lld-19"), std::string::npos) << e.what();
    GTEST_SKIP() << "no AArch64 linker: " << e.what();
  }
  std::string elf = readAll(path);
  ASSERT_GT(elf.size(), 20u);
  EXPECT_EQ(elf.substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_EQ(static_cast<unsigned char>(elf[4]), 2);  // 64-bit
  uint16_t machine = 0;
  std::memcpy(&machine, elf.data() + 18, 2);
  EXPECT_EQ(machine, 183);  // EM_AARCH64
  EXPECT_NE(elf.find("payload"), std::string::npos);
}

TEST(BuildLibrary, SoftmaxKernel) {
  constexpr int64_t kRows = 13, kCols = 77;
  CompiledLibrary lib({rowSoftmax("softmax", kRows, kCols)});
  std::vector<float> x = testing::randomFloats(kRows * kCols, -20, 20, 41), y(x.size());
  ASSERT_EQ(lib.call("softmax", {x.data(), y.data()}), 0);
  for (int64_t r = 0; r < kRows; ++r) {
    double m = -1e300, s = 0;
    for (int64_t c = 0; c < kCols; ++c) m = std::max<double>(m, x[r * kCols + c]);
    for (int64_t c = 0; c < kCols; ++c) s += std::exp(x[r * kCols + c] - m);
    for (int64_t c = 0; c < kCols; ++c) {
      double want = std::exp(x[r * kCols + c] - m) / s;
      ASSERT_NEAR(y[r * kCols + c], want, 1e-6 + 1e-5 * want) << r << "," << c;
    }
  }
}

TEST(BuildLibrary, ConcurrentBuildsAreIndependent) {
  // Tuning compiles candidates on several threads at once.
  constexpr int64_t kN = 300;
  std::vector<float> x = testing::randomFloats(kN, -1, 1, 51);
  std::vector<std::vector<float>> ys(4, std::vector<float>(kN));
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      CompiledLibrary lib({affineRelu("k", kN, t + 1)}, t % 2 == 0 ? 3 : 1);
      lib.call("k", {x.data(), ys[t].data()});
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    for (int64_t i = 0; i < kN; ++i) {
      ASSERT_NEAR(ys[t][i], std::max(x[i] * (t + 1.0f) + 1, 0.0f), 1e-5f) << t;
    }
  }
}

TEST(BuildLibrary, HundredKernelsCompileInReasonableTime) {
  std::vector<PrimFunc> funcs;
  for (int k = 0; k < 100; ++k) {
    std::string name = "kernel_" + std::to_string(k);
    funcs.push_back(k % 2 == 0 ? affineRelu(name, 1000 + k, k) : rowSoftmax(name, 64, 100 + k));
  }
  ScratchDir dir;
  BuildOptions options;
  options.target = Target::host();
  auto start = std::chrono::steady_clock::now();
  buildSharedLibrary(funcs, std::string(1 << 20, 'w'), options, dir.file("lib.so"));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "100 kernels at O3: " << seconds << " s\n";
  EXPECT_LT(seconds, 60.0);
  void* h = dlopen(dir.file("lib.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  EXPECT_NE(dlsym(h, "kernel_99"), nullptr);
  dlclose(h);
}

}  // namespace
}  // namespace kiln::codegen
