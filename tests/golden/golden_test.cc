// Golden tests of the graph passes: tests/golden/<pass-name>/<case>.ir holds the IR before the
// pass after a `// before` line and the exact printed IR expected after it after `// after`.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "golden_util.h"
#include "kiln/ir/parser.h"
#include "kiln/ir/printer.h"
#include "kiln/ir/verifier.h"
#include "kiln/support/file.h"
#include "kiln/transform/passes.h"

namespace kiln::transform {
namespace {

using golden::diff;
using golden::lines;
using golden::splitCase;

namespace fs = std::filesystem;

struct GoldenCase {
  std::string pass;
  std::string path;
};

// GoogleTest lists a parameter beside its test's name; without this it prints the struct's bytes
// (pointers), which would change the test's name from one build to the next.
void PrintTo(const GoldenCase& c, std::ostream* os) {
  *os << c.pass << ":" << fs::path(c.path).filename().string();
}

std::vector<GoldenCase> findCases() {
  std::vector<GoldenCase> cases;
  fs::path root = fs::path(KILN_SOURCE_DIR) / "tests" / "golden";
  for (const auto& dir : fs::directory_iterator(root)) {
    // kernels/ holds lowering cases (lower_golden_test.cc), not a pass.
    if (!dir.is_directory() || dir.path().filename() == "kernels") continue;
    for (const auto& file : fs::directory_iterator(dir.path())) {
      if (file.path().extension() == ".ir") {
        cases.push_back({dir.path().filename().string(), file.path().string()});
      }
    }
  }
  std::sort(cases.begin(), cases.end(),
            [](const GoldenCase& a, const GoldenCase& b) { return a.path < b.path; });
  return cases;
}

class Golden : public testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, MatchesExpectedIr) {
  const GoldenCase& c = GetParam();
  auto [before, after] = splitCase(readTextFile(c.path), c.path);
  auto graph = ir::parseGraph(before);
  const ir::Pass& pass = findPass(c.pass);
  pass.run(*graph);
  EXPECT_NO_THROW(ir::verifyGraph(*graph));
  std::string printed = ir::printGraph(*graph);
  std::vector<std::string> want = lines(after), got = lines(printed);
  EXPECT_TRUE(want == got) << c.path << "\n" << diff(want, got);
  // The expected text must itself be valid IR, and the pass must leave a graph that re-parses.
  EXPECT_NO_THROW(ir::parseGraph(printed)) << printed;
}

INSTANTIATE_TEST_SUITE_P(Passes, Golden, testing::ValuesIn(findCases()),
                         [](const testing::TestParamInfo<GoldenCase>& info) {
                           return golden::testName(info.param.pass + "_" +
                                                   fs::path(info.param.path).stem().string());
                         });

TEST(GoldenSuite, EveryRegisteredPassHasCases) {
  std::vector<GoldenCase> cases = findCases();
  for (const ir::Pass& pass : allPasses()) {
    bool found = std::any_of(cases.begin(), cases.end(),
                             [&](const GoldenCase& c) { return c.pass == pass.name; });
    EXPECT_TRUE(found) << "no golden case for pass " << pass.name;
  }
}

}  // namespace
}  // namespace kiln::transform
