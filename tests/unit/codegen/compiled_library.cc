// Plain dlopen, on purpose: these tests check the generated code, not the runtime's loader.
#include "compiled_library.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <thread>

namespace kiln::codegen::testing {

ScratchDir::ScratchDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "kiln-codegen-test-XXXXXX");
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  EXPECT_NE(mkdtemp(buf.data()), nullptr);
  path_ = buf.data();
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

namespace {

BuildOptions hostOptions(int optLevel) {
  BuildOptions options;
  options.target = Target::host();
  options.optLevel = optLevel;
  return options;
}

}  // namespace

CompiledLibrary::CompiledLibrary(const std::vector<tir::PrimFunc>& funcs, int optLevel,
                                 const std::string& artifact)
    : CompiledLibrary(funcs, hostOptions(optLevel), artifact) {}

CompiledLibrary::CompiledLibrary(const std::vector<tir::PrimFunc>& funcs,
                                 const BuildOptions& options, const std::string& artifact) {
  buildSharedLibrary(funcs, artifact, options, path());
  handle_ = dlopen(path().c_str(), RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(handle_, nullptr) << dlerror();
}

CompiledLibrary::~CompiledLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

void* CompiledLibrary::symbol(const std::string& name) const {
  void* p = handle_ != nullptr ? dlsym(handle_, name.c_str()) : nullptr;
  EXPECT_NE(p, nullptr) << "missing symbol " << name;
  return p;
}

KilnKernelFn CompiledLibrary::kernel(const std::string& name) const {
  return reinterpret_cast<KilnKernelFn>(symbol(name));
}

int32_t CompiledLibrary::call(const std::string& name, const std::vector<void*>& args) const {
  KilnKernelFn fn = kernel(name);
  if (fn == nullptr) return -12345;
  return fn(args.data());
}

void CompiledLibrary::setBackendApi(const KilnBackendApi* api) const {
  auto** slot = static_cast<const KilnBackendApi**>(symbol(KILN_SYMBOL_BACKEND_API));
  if (slot != nullptr) *slot = api;
}

std::atomic<int> ChunkingPool::launches{0};
std::atomic<int> ChunkingPool::bodyCalls{0};
std::atomic<int32_t> ChunkingPool::failWith{0};

int32_t ChunkingPool::launch(KilnParallelBody body, void* closure, int64_t extent) {
  ++launches;
  if (failWith != 0) return failWith;
  int64_t chunk = (extent + 2) / 3;
  std::vector<std::thread> threads;
  std::vector<int32_t> status(3, 0);
  for (int t = 0; t < 3; ++t) {
    int64_t begin = t * chunk, end = std::min(extent, begin + chunk);
    if (begin >= end) continue;
    threads.emplace_back([=, &status] {
      ++bodyCalls;
      status[t] = body(begin, end, closure);
    });
  }
  for (std::thread& th : threads) th.join();
  for (int32_t s : status) {
    if (s != 0) return s;
  }
  return 0;
}

void ChunkingPool::reset() {
  launches = 0;
  bodyCalls = 0;
  failWith = 0;
}

const KilnBackendApi* ChunkingPool::api() {
  static const KilnBackendApi kApi{KILN_ABI_VERSION, &ChunkingPool::launch};
  return &kApi;
}

std::vector<float> randomFloats(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

tir::PrimFunc rowSoftmax(const std::string& name, int64_t rows, int64_t cols) {
  using namespace tir;
  Buffer x = makeBuffer("x", DataType::float32(), {rows, cols});
  Buffer y = makeBuffer("y", DataType::float32(), {rows, cols});
  Buffer acc = makeBuffer("acc", DataType::float32(), {2});
  Expr r = var("r"), c = var("c");
  Expr at = r * intImm(cols) + c;
  Expr mx = load(acc, intImm(0)), sum = load(acc, intImm(1));
  auto pass = [&](const Stmt& body) {
    return forLoop(c, intImm(0), intImm(cols), ForKind::kVectorized, body);
  };
  Stmt row =
      allocate(acc, seq({store(acc, intImm(0), floatImm(-3e38)), store(acc, intImm(1), floatImm(0)),
                         pass(store(acc, intImm(0), max(mx, load(x, at)))),
                         pass(seq({store(y, at, call(Intrinsic::kExp, {load(x, at) - mx})),
                                   store(acc, intImm(1), sum + load(y, at))})),
                         pass(store(y, at, load(y, at) / sum))}));
  return {name, {x, y}, forLoop(r, intImm(0), intImm(rows), ForKind::kParallel, row)};
}

}  // namespace kiln::codegen::testing
