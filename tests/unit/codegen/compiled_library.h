// Test support: builds kernels into a shared library in a private directory and dlopens it, plus a
// fake runtime pool that counts how the kernels use it.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/codegen/llvm/build_library.h"
#include "kiln/runtime/backend_api.h"
#include "kiln/tir/prim_func.h"

namespace kiln::codegen::testing {

// A scratch directory removed at the end of the test.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

class CompiledLibrary {
 public:
  explicit CompiledLibrary(const std::vector<tir::PrimFunc>& funcs, int optLevel = 3,
                           const std::string& artifact = "test artifact");
  // Builds with OPTIONS as given (target included).
  CompiledLibrary(const std::vector<tir::PrimFunc>& funcs, const BuildOptions& options,
                  const std::string& artifact = "test artifact");
  ~CompiledLibrary();
  CompiledLibrary(const CompiledLibrary&) = delete;
  CompiledLibrary& operator=(const CompiledLibrary&) = delete;

  void* symbol(const std::string& name) const;  // fails the test when missing
  KilnKernelFn kernel(const std::string& name) const;
  // Calls kernel NAME with the data pointers of ARGS, in order; returns its status.
  int32_t call(const std::string& name, const std::vector<void*>& args) const;
  void setBackendApi(const KilnBackendApi* api) const;
  std::string path() const { return dir_.file("lib.so"); }

 private:
  ScratchDir dir_;
  void* handle_ = nullptr;
};

// parallel_launch that runs [0, extent) as three chunks on three threads and counts launches and
// body calls; FAIL_WITH makes it return that status instead of running anything.
struct ChunkingPool {
  static std::atomic<int> launches;
  static std::atomic<int> bodyCalls;
  static std::atomic<int32_t> failWith;
  static int32_t launch(KilnParallelBody body, void* closure, int64_t extent);
  static void reset();
  static const KilnBackendApi* api();
};

std::vector<float> randomFloats(size_t n, float lo, float hi, uint32_t seed);

// Row-wise softmax over x[rows, cols] -> y: parallel rows, three vectorized passes through a local
// accumulator (max, sum of exp, normalise), as the kernel layer emits for a fused softmax.
tir::PrimFunc rowSoftmax(const std::string& name, int64_t rows, int64_t cols);

}  // namespace kiln::codegen::testing
