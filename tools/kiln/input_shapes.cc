// The --input-shapes syntax shared by compile (and later tune): whitespace-separated name:[dims].
#include "input_shapes.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>

#include "exit_codes.h"

namespace kiln::cli {

int64_t parseDim(const std::string& text, const std::string& what) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0 ||
      value >= (int64_t{1} << 62)) {
    throw UsageError(strCat(what, ": dimension '", text, "' is not a number between 0 and 2^62"));
  }
  return value;
}

std::map<std::string, runtime::Shape> parseInputShapes(const std::string& text) {
  static const std::regex kEntry(R"(\s*(\S+?):\[([0-9,\s]*)\]\s*,?)");
  std::map<std::string, runtime::Shape> shapes;
  auto begin = text.cbegin();
  std::smatch m;
  while (begin != text.cend()) {
    if (std::all_of(begin, text.cend(), [](char c) { return std::isspace(c); })) break;
    if (!std::regex_search(begin, text.cend(), m, kEntry, std::regex_constants::match_continuous)) {
      throw UsageError(strCat("--input-shapes: cannot parse '", std::string(begin, text.cend()),
                              "'; expected name:[d0,d1,...] entries separated by spaces, e.g. "
                              "\"input:[1,3,224,224]\""));
    }
    runtime::Shape shape;
    std::string dims = m[2];
    static const std::regex kNum("[0-9]+");
    for (auto it = std::sregex_iterator(dims.begin(), dims.end(), kNum);
         it != std::sregex_iterator(); ++it) {
      shape.push_back(parseDim(it->str(), strCat("--input-shapes '", m[1].str(), "'")));
    }
    if (!shapes.emplace(m[1], shape).second) {
      throw UsageError(strCat("--input-shapes: input '", m[1].str(), "' is given twice"));
    }
    begin = m[0].second;
  }
  return shapes;
}

}  // namespace kiln::cli
