// An executor's entry function, described without LLVM: the kernels it calls in order and where
// each of their arguments lies. Code generation turns it into
//
//   int32_t SYMBOL(void* const* inputs, void* const* outputs, void* const* params,
//                  void* workspace);
//
// which returns 0, or the first non-zero status a kernel returned (the kernels after it do not
// run).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::codegen {

struct EntryArg {
  enum class Base { kInput, kOutput, kParam, kWorkspace };
  Base base = Base::kWorkspace;
  int64_t index = 0;   // which input, output or param (unused for the workspace)
  int64_t offset = 0;  // bytes from that pointer
};

struct EntryCall {
  std::string kernel;  // the kernel's symbol: int32_t kernel(void* const* args)
  std::vector<EntryArg> args;
};

struct EntryFunction {
  std::string symbol;
  std::vector<EntryCall> calls;
};

}  // namespace kiln::codegen
