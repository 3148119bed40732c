// Entry functions (entry_function.h) as an object file of their own.
#pragma once

#include <string>
#include <vector>

#include "kiln/codegen/llvm/entry_function.h"
#include "kiln/codegen/llvm/target.h"

namespace kiln::codegen {

// Generates ENTRIES for TARGET in a context of its own (so it may run beside the kernel shards)
// and writes the object to PATH; returns the optimised IR when KEEP_IR.
std::string emitEntryObject(const std::vector<EntryFunction>& entries, const Target& target,
                            int optLevel, const std::string& path, bool keepIr);

}  // namespace kiln::codegen
