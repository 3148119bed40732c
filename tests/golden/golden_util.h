// What the golden tests share: splitting a case file, and a line diff for failure messages.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kiln::golden {

// The text between the `// before` and `// after` marker lines, and after `// after`; a test
// failure naming PATH when the markers are missing.
std::pair<std::string, std::string> splitCase(const std::string& text, const std::string& path);
// TEXT's lines, trailing blank lines dropped.
std::vector<std::string> lines(const std::string& text);
// A line-by-line diff: the longest common subsequence, '-' for expected and '+' for actual.
std::string diff(const std::vector<std::string>& want, const std::vector<std::string>& got);
// NAME with every character that is not a letter or digit replaced by '_': a valid test name.
std::string testName(std::string name);

}  // namespace kiln::golden
