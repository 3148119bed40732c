// Checks that splitting code generation over threads is invisible in the result: the same numbers
// for any thread count, every kernel exported once, one backend API slot that every shard uses,
// errors from worker threads as they would be from one, and a dump that holds every shard.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "compiled_library.h"
#include "elf_symbols.h"
#include "kiln/codegen/llvm/build_library.h"
#include "kiln/support/error.h"

namespace kiln::codegen {
namespace {

using namespace tir;
using testing::ChunkingPool;
using testing::CompiledLibrary;
using testing::ScratchDir;

constexpr int64_t kRows = 9, kCols = 61, kSize = kRows * kCols;
// float32 elements of a local buffer too big for the stack.
constexpr int64_t kHeapElements = 256 * 1024 / 4 + 16;

// Every kernel below reads x[kRows, kCols] and writes y[kRows, kCols].
struct TestKernel {
  PrimFunc func;
  bool parallel;
};

// y = x * s + b, vectorized.
TestKernel affine(const std::string& name, double s, double b) {
  Buffer x = makeBuffer("x", DataType::float32(), {kSize});
  Buffer y = makeBuffer("y", DataType::float32(), {kSize});
  Expr i = var("i");
  Stmt body = forLoop(i, intImm(0), intImm(kSize), ForKind::kVectorized,
                      store(y, i, load(x, i) * floatImm(s) + floatImm(b)));
  return {{name, {x, y}, body}, false};
}

// y = tanh(x) * erf(x) + exp(-x), vectorized: the polynomial math expansions.
TestKernel transcendental(const std::string& name) {
  Buffer x = makeBuffer("x", DataType::float32(), {kSize});
  Buffer y = makeBuffer("y", DataType::float32(), {kSize});
  Expr i = var("i");
  Expr v = load(x, i);
  Expr value = call(Intrinsic::kTanh, {v}) * call(Intrinsic::kErf, {v}) +
               call(Intrinsic::kExp, {floatImm(0) - v});
  return {{name,
           {x, y},
           forLoop(i, intImm(0), intImm(kSize), ForKind::kVectorized, store(y, i, value))},
          false};
}

// Row softmax with parallel rows, so the kernel goes through __kiln_backend_api.
TestKernel softmax(const std::string& name) {
  return {testing::rowSoftmax(name, kRows, kCols), true};
}

// Serial row sums into a heap-sized local buffer, broadcast back over the row.
TestKernel rowSums(const std::string& name) {
  Buffer x = makeBuffer("x", DataType::float32(), {kRows, kCols});
  Buffer y = makeBuffer("y", DataType::float32(), {kRows, kCols});
  Buffer big = makeBuffer("big", DataType::float32(), {kHeapElements});
  Expr r = var("r"), c = var("c");
  Expr at = r * intImm(kCols) + c;
  Stmt sum =
      seq({store(big, r, floatImm(0)),
           forLoop(c, intImm(0), intImm(kCols), ForKind::kSerial,
                   store(big, r, load(big, r) + load(x, at))),
           forLoop(c, intImm(0), intImm(kCols), ForKind::kSerial, store(y, at, load(big, r)))});
  return {
      {name, {x, y}, allocate(big, forLoop(r, intImm(0), intImm(kRows), ForKind::kSerial, sum))},
      false};
}

std::vector<TestKernel> mixedKernels() {
  return {affine("k_affine_a", 1.5, 0.25), softmax("k_softmax_a"),      transcendental("k_math"),
          rowSums("k_row_sums"),           affine("k_affine_b", -3, 1), softmax("k_softmax_b"),
          affine("k_affine_c", 0.5, -2)};
}

std::vector<PrimFunc> funcsOf(const std::vector<TestKernel>& kernels) {
  std::vector<PrimFunc> funcs;
  funcs.reserve(kernels.size());
  for (const TestKernel& k : kernels) funcs.push_back(k.func);
  return funcs;
}

BuildOptions withThreads(int threads) {
  BuildOptions options;
  options.target = Target::host();
  options.threads = threads;
  return options;
}

// Runs every kernel of KERNELS in LIB on the same input, through the fake pool.
std::vector<std::vector<float>> runAll(const CompiledLibrary& lib,
                                       const std::vector<TestKernel>& kernels, int* launches) {
  std::vector<float> x = testing::randomFloats(kSize, -4, 4, 61);
  ChunkingPool::reset();
  lib.setBackendApi(ChunkingPool::api());
  std::vector<std::vector<float>> outputs;
  for (const TestKernel& k : kernels) {
    std::vector<float> y(kSize, -777);
    EXPECT_EQ(lib.call(k.func.name, {x.data(), y.data()}), 0) << k.func.name;
    outputs.push_back(std::move(y));
  }
  *launches = ChunkingPool::launches;
  return outputs;
}

TEST(ShardedBuild, OneAndThreeThreadsComputeIdenticalResults) {
  std::vector<TestKernel> kernels = mixedKernels();
  CompiledLibrary serial(funcsOf(kernels), withThreads(1));
  CompiledLibrary sharded(funcsOf(kernels), withThreads(3));
  int serialLaunches = 0, shardedLaunches = 0;
  std::vector<std::vector<float>> want = runAll(serial, kernels, &serialLaunches);
  std::vector<std::vector<float>> got = runAll(sharded, kernels, &shardedLaunches);
  for (size_t k = 0; k < kernels.size(); ++k) {
    // The same IR through the same pipeline: not merely close, bit for bit the same.
    // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison): the bits are compared, as meant.
    EXPECT_EQ(std::memcmp(want[k].data(), got[k].data(), kSize * sizeof(float)), 0)
        << kernels[k].func.name;
  }
  // Both libraries compute the right thing, not just the same thing.
  std::vector<float> x = testing::randomFloats(kSize, -4, 4, 61);
  for (int64_t i = 0; i < kSize; ++i) ASSERT_NEAR(got[4][i], x[i] * -3.0f + 1, 1e-5f) << i;
  // Every parallel kernel, whichever shard it landed in, found the pool through the one slot.
  int parallel = 0;
  for (const TestKernel& k : kernels) parallel += k.parallel ? 1 : 0;
  EXPECT_EQ(serialLaunches, parallel);
  EXPECT_EQ(shardedLaunches, parallel);
}

TEST(ShardedBuild, ExportsEveryKernelAndKilnSymbolExactlyOnce) {
  std::vector<TestKernel> kernels = mixedKernels();
  for (int threads : {1, 3}) {
    CompiledLibrary lib(funcsOf(kernels), withThreads(threads));
    std::map<std::string, int> symbols = testing::definedDynamicSymbols(lib.path());
    for (const TestKernel& k : kernels) {
      EXPECT_EQ(symbols[k.func.name], 1) << k.func.name << " with " << threads << " threads";
    }
    for (const char* name :
         {KILN_SYMBOL_BACKEND_API, KILN_SYMBOL_ARTIFACT, KILN_SYMBOL_ARTIFACT_SIZE}) {
      EXPECT_EQ(symbols[name], 1) << name << " with " << threads << " threads";
    }
    for (const auto& [name, count] : symbols) {
      EXPECT_EQ(name.find(".impl"), std::string::npos) << "internal body exported: " << name;
    }
  }
}

TEST(ShardedBuild, MoreThreadsThanKernels) {
  std::vector<TestKernel> kernels = {affine("only_a", 2, 0), softmax("only_b")};
  CompiledLibrary lib(funcsOf(kernels), withThreads(8), "eight");
  int launches = 0;
  std::vector<std::vector<float>> y = runAll(lib, kernels, &launches);
  std::vector<float> x = testing::randomFloats(kSize, -4, 4, 61);
  for (int64_t i = 0; i < kSize; ++i) ASSERT_NEAR(y[0][i], x[i] * 2, 1e-6f) << i;
  EXPECT_EQ(launches, 1);

  CompiledLibrary empty({}, withThreads(4), "none");
  auto* size = static_cast<const uint64_t*>(empty.symbol(KILN_SYMBOL_ARTIFACT_SIZE));
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(*size, 4u);
  EXPECT_NE(empty.symbol(KILN_SYMBOL_BACKEND_API), nullptr);
}

TEST(ShardedBuild, NegativeThreadCountIsAnError) {
  ScratchDir dir;
  try {
    buildSharedLibrary({}, "", withThreads(-2), dir.file("x.so"));
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("-2"), std::string::npos) << e.what();
  }
}

// The same failure, raised on a worker thread, reaches the caller with its type and message.
std::string failureOf(const std::vector<PrimFunc>& funcs, int threads) {
  ScratchDir dir;
  try {
    buildSharedLibrary(funcs, "", withThreads(threads), dir.file("x.so"));
  } catch (const InternalError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
  return "";
}

TEST(ShardedBuild, ErrorsFromWorkerThreadsReachTheCaller) {
  std::vector<PrimFunc> funcs = funcsOf(mixedKernels());
  Buffer y = makeBuffer("y", DataType::float32(), {4});
  funcs.push_back({"broken", {y}, store(y, intImm(0), var("ghost", DataType::float32()))});
  std::string serial = failureOf(funcs, 1);
  EXPECT_NE(serial.find("'ghost'"), std::string::npos) << serial;
  EXPECT_EQ(failureOf(funcs, 3), serial);
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int countOf(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ShardedBuild, DumpHoldsEveryShardOnce) {
  std::vector<PrimFunc> funcs = {softmax("dump_a").func, softmax("dump_b").func,
                                 softmax("dump_c").func};
  ScratchDir dir;
  BuildOptions options = withThreads(3);
  options.dumpLlvmPath = dir.file("module.ll");
  buildSharedLibrary(funcs, "artifact", options, dir.file("lib.so"));
  std::string ir = readAll(options.dumpLlvmPath);
  EXPECT_EQ(countOf(ir, "; ModuleID"), 3) << ir;
  // Equal kernels spread one per shard.
  for (int shard = 1; shard <= 3; ++shard) {
    size_t begin = ir.find("shard " + std::to_string(shard) + " of 3");
    ASSERT_NE(begin, std::string::npos) << shard;
    size_t end = ir.find("; ModuleID", ir.find("; ModuleID", begin) + 1);
    std::string section = ir.substr(begin, end == std::string::npos ? end : end - begin);
    EXPECT_EQ(countOf(section, "(ptr nocapture readonly %args)"), 1) << section;
  }
  for (const PrimFunc& f : funcs) EXPECT_EQ(countOf(ir, "@" + f.name + "(ptr"), 1) << f.name;
  // One module defines the slot; the others only declare it.
  int definitions = 0, declarations = 0;
  std::istringstream lines(ir);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(std::string("@") + KILN_SYMBOL_BACKEND_API + " = ", 0) != 0) continue;
    bool external = line.find(" external ") != std::string::npos;
    (external ? declarations : definitions) += 1;
    if (!external) {
      EXPECT_NE(line.find("global ptr null"), std::string::npos) << line;
    }
  }
  EXPECT_EQ(definitions, 1);
  EXPECT_EQ(declarations, 2);
}

}  // namespace
}  // namespace kiln::codegen
