// One shard of a library: some of its kernels, compiled to one object file on one thread.
#pragma once

#include <string>
#include <vector>

#include "codegen_module.h"
#include "kiln/codegen/llvm/target.h"
#include "kiln/tir/prim_func.h"

namespace kiln::codegen {

struct ShardJob {
  std::vector<tir::PrimFunc> funcs;
  BackendApiSlot api = BackendApiSlot::kDeclare;
  std::string objectPath;
  bool keepIr = false;   // return the optimised IR as text
  bool keepAsm = false;  // return the assembly as text
};

struct ShardText {
  std::string ir, assembly;  // empty unless asked for
};

// Lowers, optimises (O<OPT_LEVEL>) and emits JOB's kernels for TARGET in an LLVM context, module
// and target machine of its own, so shards may compile on different threads at once. Returns the
// optimised IR and the assembly when JOB asks for them. Throws kiln::Error when LLVM reports an
// error.
ShardText compileShard(const ShardJob& job, const Target& target, int optLevel);

}  // namespace kiln::codegen
