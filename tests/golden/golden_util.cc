// The helpers of golden_util.h.
#include "golden_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace kiln::golden {

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

std::string testName(std::string name) {
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

}  // namespace kiln::golden
