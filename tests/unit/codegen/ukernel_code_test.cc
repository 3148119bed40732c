// Fails when the micro-kernels stop being vectorised or register-blocked: the machine code of the
// gemm, conv and depthwise micro-kernels, compiled for AVX-512 (including CPUs whose LLVM models
// prefer 256-bit vectors), AVX2 and AArch64 NEON, must use full-width vector FMAs only, into as
// many distinct accumulator registers as the tile has.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include "compiled_library.h"
#include "kiln/codegen/llvm/build_library.h"
#include "kiln/driver/target_model.h"
#include "kiln/kernel/tile_model.h"
#include "kiln/kernel/ukernel.h"
#include "kiln/support/file.h"

namespace kiln::codegen {
namespace {

using kernel::TargetModel;
using testing::ScratchDir;

// The assembly of F built for TARGET.
std::string assemblyOf(const tir::PrimFunc& f, const Target& target) {
  ScratchDir dir;
  BuildOptions options;
  options.target = target;
  options.dumpAsmPath = dir.file("k.s");
  buildSharedLibrary({f}, "", options, dir.file("k.so"));
  return readTextFile(options.dumpAsmPath);
}

struct FmaUse {
  int full = 0;                        // FMAs on full-width vectors
  int other = 0;                       // FMAs of any other width (scalar or narrower vectors)
  std::set<std::string> accumulators;  // distinct destination registers of the full ones
};

// x86 (AT&T syntax: destination last) or AArch64 (destination first) FMAs in ASM.
FmaUse fmaUse(const std::string& assembly, const Target& target) {
  FmaUse u;
  bool arm = target.isaName() == "neon";
  std::string wide = target.vectorLanes() == 16 ? "zmm" : "ymm";
  std::istringstream in(assembly);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (arm) {
      if (!std::regex_search(line, m, std::regex(R"(^\s*fml[as]\s+(v\d+)\.(\w+))"))) continue;
      if (m[2] == "4s") {
        ++u.full;
        u.accumulators.insert(m[1]);
      } else {
        ++u.other;
      }
      continue;
    }
    if (!std::regex_search(line, m, std::regex(R"(^\s*vf[n]?m(add|sub)\w*\s+(.*)$)"))) continue;
    std::string operands = m[2];
    std::smatch dest;
    std::regex_search(operands, dest, std::regex(R"(%(\w+)\s*$)"));
    std::string reg = dest[1];
    if (reg.rfind(wide, 0) == 0 && line.find("ps") != std::string::npos) {
      ++u.full;
      u.accumulators.insert(reg);
    } else {
      ++u.other;
    }
  }
  return u;
}

class UkernelCode : public ::testing::TestWithParam<const char*> {};

// The tiles are the analytical defaults for a large problem, so the test also fails when the
// model picks a tile the register file cannot hold.
TEST_P(UkernelCode, GemmConvAndDepthwiseAreFullWidthAndRegisterBlocked) {
  Target target = Target::parse(GetParam());
  TargetModel model = driver::targetModelOf(target);
  kernel::GemmTileChoice tile = kernel::chooseGemmTile(model, 1024, 64);
  int mr = tile.mr, nv = tile.nv;
  EXPECT_GE(mr * nv, model.minAccumulators()) << "too few accumulators to hide the FMA latency";
  struct Kernel {
    tir::PrimFunc f;
    size_t accumulators;
  };
  std::vector<Kernel> kernels = {
      {kernel::ukernel::gemmUkernel(mr, nv, 64, model), static_cast<size_t>(mr * nv)},
      {kernel::ukernel::convUkernel(mr, nv, model), static_cast<size_t>(mr * nv)},
      {kernel::ukernel::dwconvUkernel(8, model), 8u}};
  for (const Kernel& k : kernels) {
    SCOPED_TRACE(k.f.name + " for " + target.str());
    FmaUse u = fmaUse(assemblyOf(k.f, target), target);
    EXPECT_GT(u.full, 0) << "no full-width vector FMA";
    EXPECT_EQ(u.other, 0) << "scalar or narrow FMAs";
    EXPECT_EQ(u.accumulators.size(), k.accumulators) << "accumulators held in registers";
  }
}

INSTANTIATE_TEST_SUITE_P(Isas, UkernelCode,
                         ::testing::Values("llvm -mcpu=znver4", "llvm -mcpu=skylake-avx512",
                                           "llvm -mcpu=icelake-server", "llvm -mcpu=haswell",
                                           "llvm -mcpu=znver4 -vector-bits=256",
                                           "llvm -mtriple=aarch64-linux-gnu"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name = info.param;
                           name = name.substr(name.find('=') + 1);
                           if (name.find("vector-bits") != std::string::npos)
                             name = name.substr(0, name.find(' ')) + "_256";
                           for (char& c : name)
                             c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

}  // namespace
}  // namespace kiln::codegen
