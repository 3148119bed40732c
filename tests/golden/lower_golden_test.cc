// Golden tests of lowering: tests/golden/kernels/<case>.ir holds a graph (nodes labelled with
// their fused groups) after `// before`, and after `// after` the exact loop IR its groups lower
// to, one kernel per group in order, for a pinned target (AVX-512, 16 lanes) so the text does not
// depend on the machine running the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "golden_util.h"
#include "kiln/ir/fused_group.h"
#include "kiln/ir/parser.h"
#include "kiln/kernel/lower.h"
#include "kiln/support/file.h"
#include "kiln/tir/parser.h"
#include "kiln/tir/printer.h"
#include "kiln/tir/verifier.h"

namespace kiln::kernel {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> findKernelCases() {
  std::vector<std::string> cases;
  for (const auto& file :
       fs::directory_iterator(fs::path(KILN_SOURCE_DIR) / "tests" / "golden" / "kernels")) {
    if (file.path().extension() == ".ir") cases.push_back(file.path().string());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

class LoweringGolden : public testing::TestWithParam<std::string> {};

TEST_P(LoweringGolden, MatchesExpectedLoopIr) {
  const std::string& path = GetParam();
  auto [before, after] = golden::splitCase(readTextFile(path), path);
  auto graph = ir::parseGraph(before);
  ScheduleConfig config;
  config.target = TargetModel::avx512();
  std::string printed;
  for (const ir::FusedGroup& group : ir::collectGroups(*graph)) {
    LoweredKernel k = lowerGroup(group, "kiln_default__" + group.name, config);
    printed += (printed.empty() ? "" : "\n") + tir::printPrimFunc(k.func);
  }
  std::vector<std::string> want = golden::lines(after), got = golden::lines(printed);
  EXPECT_TRUE(want == got) << path << "\n" << golden::diff(want, got);
  // The expected text is valid loop IR, and prints back as written.
  std::vector<tir::PrimFunc> expected = tir::parsePrimFuncs(after);
  std::string reprinted;
  for (const tir::PrimFunc& f : expected) {
    EXPECT_TRUE(tir::verify(f).empty()) << f.name;
    reprinted += (reprinted.empty() ? "" : "\n") + tir::printPrimFunc(f);
  }
  EXPECT_TRUE(golden::lines(reprinted) == want) << golden::diff(want, golden::lines(reprinted));
}

INSTANTIATE_TEST_SUITE_P(Kernels, LoweringGolden, testing::ValuesIn(findKernelCases()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return golden::testName(fs::path(info.param).stem().string());
                         });

}  // namespace
}  // namespace kiln::kernel
