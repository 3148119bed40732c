// The kernels of every model going into one library, each distinct kernel once: two models (or
// two layers of one) with identical operators share one symbol.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "kiln/kernel/lower.h"

namespace kiln::driver {

class KernelPool {
 public:
  // When a kernel with the same parameters and body is already in the pool, points K at its
  // symbol (K's own is dropped); otherwise adds K's function under its own symbol.
  void add(kernel::LoweredKernel& k);
  // Every distinct kernel, in the order first added.
  std::vector<tir::PrimFunc> take() { return std::move(funcs_); }
  size_t reused() const { return reused_; }
  size_t size() const { return symbolByBody_.size(); }  // distinct kernels added so far

 private:
  std::unordered_map<std::string, std::string> symbolByBody_;
  std::vector<tir::PrimFunc> funcs_;
  size_t reused_ = 0;
};

}  // namespace kiln::driver
