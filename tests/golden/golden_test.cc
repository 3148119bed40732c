// Golden tests of the graph passes: tests/golden/<pass-name>/<case>.ir holds the IR before the
// pass after a `// before` line and the exact printed IR expected after it after `// after`.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "kiln/ir/parser.h"
#include "kiln/ir/printer.h"
#include "kiln/ir/verifier.h"
#include "kiln/support/file.h"
#include "kiln/transform/passes.h"

namespace kiln::transform {
namespace {

namespace fs = std::filesystem;

struct GoldenCase {
  std::string pass;
  std::string path;
};

std::vector<GoldenCase> findCases() {
  std::vector<GoldenCase> cases;
  fs::path root = fs::path(KILN_SOURCE_DIR) / "tests" / "golden";
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
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

// The text between the `// before` and `// after` marker lines, and after `// after`.
std::pair<std::string, std::string> splitCase(const std::string& text, const std::string& path) {
  const std::string before = "// before\n", after = "// after\n";
  size_t b = text.find(before);
  size_t a = text.find(after);
  if (b == std::string::npos || a == std::string::npos || a < b) {
    ADD_FAILURE() << path << ": needs a '// before' line, then a '// after' line";
    return {};
  }
  return {text.substr(b + before.size(), a - b - before.size()), text.substr(a + after.size())};
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  while (!out.empty() && out.back().find_first_not_of(" \t") == std::string::npos) out.pop_back();
  return out;
}

// A line-by-line diff: the longest common subsequence, with '-' for expected and '+' for actual.
std::string diff(const std::vector<std::string>& want, const std::vector<std::string>& got) {
  size_t n = want.size(), m = got.size();
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      lcs[i][j] =
          want[i] == got[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  std::string out = "--- expected\n+++ actual\n";
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && want[i] == got[j]) {
      out += "  " + want[i++] + "\n";
      ++j;
    } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out += "+ " + got[j++] + "\n";
    } else {
      out += "- " + want[i++] + "\n";
    }
  }
  return out;
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
                           std::string name =
                               info.param.pass + "_" + fs::path(info.param.path).stem().string();
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
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
