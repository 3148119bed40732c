// Splitting text at a separator, the one loop behind paths, feature lists and search paths.
#pragma once

#include <string>
#include <vector>

namespace kiln {

// The pieces of TEXT between occurrences of SEP, empty ones included: "a::b" -> {"a", "", "b"},
// "" -> {""}.
std::vector<std::string> splitOn(const std::string& text, char sep);

}  // namespace kiln
