// Test support: what a shared library exports, read from its ELF file rather than through dlsym
// (which finds a name but cannot tell how often it is defined).
#pragma once

#include <map>
#include <string>

namespace kiln::codegen::testing {

// How many times each symbol is defined in the dynamic symbol table of the 64-bit ELF file PATH
// (undefined references are not counted). Fails the test when PATH is not such a file.
std::map<std::string, int> definedDynamicSymbols(const std::string& path);

}  // namespace kiln::codegen::testing
