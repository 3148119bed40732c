// Reads and writes symbols' bounds: "seq<=1024, 1<=batch<=8".
#include "kiln/opdef/dim_bounds.h"

#include <cctype>
#include <charconv>
#include <optional>
#include <string_view>
#include <vector>

#include "kiln/support/error.h"

namespace kiln::opdef {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> splitOn(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> parts;
  for (size_t pos = s.find(sep); pos != std::string_view::npos; pos = s.find(sep)) {
    parts.push_back(s.substr(0, pos));
    s.remove_prefix(pos + sep.size());
  }
  parts.push_back(s);
  return parts;
}

[[noreturn]] void badEntry(std::string_view entry, const std::string& why) {
  throw Error(strCat("dim bound '", std::string(entry), "': ", why,
                     "; expected NAME<=MAX or MIN<=NAME<=MAX, e.g. \"seq<=1024, 1<=batch<=8\""));
}

int64_t readBound(std::string_view entry, std::string_view text) {
  text = trim(text);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0 ||
      v > kMaxDimBound) {
    badEntry(entry, strCat("'", std::string(text), "' is not a whole number from 0 to 2^40"));
  }
  return v;
}

}  // namespace

DimBounds parseDimBounds(const std::string& text) {
  DimBounds bounds;
  if (trim(text).empty()) return bounds;
  for (std::string_view entry : splitOn(text, ",")) {
    entry = trim(entry);
    std::vector<std::string_view> parts = splitOn(entry, "<=");
    if (parts.size() < 2 || parts.size() > 3) badEntry(entry, "expected one or two '<='");
    std::string name(trim(parts[parts.size() - 2]));
    if (!isSymbolName(name)) {
      badEntry(entry, strCat("'", name, "' is not a symbol name (a letter or '_', then letters, ",
                             "digits and '_')"));
    }
    SizeRange range{parts.size() == 3 ? readBound(entry, parts[0]) : 0,
                    readBound(entry, parts.back())};
    if (range.min > range.max) {
      badEntry(entry, strCat("the minimum ", range.min, " is above the maximum ", range.max));
    }
    if (!bounds.emplace(name, range).second)
      badEntry(entry, strCat("'", name, "' is bounded twice"));
  }
  return bounds;
}

std::string dimBoundsStr(const DimBounds& bounds) {
  std::string s;
  for (const auto& [name, range] : bounds) {
    s += s.empty() ? "" : ", ";
    if (range.min != 0) s += strCat(range.min, "<=");
    s += strCat(name, "<=", range.max);
  }
  return s;
}

}  // namespace kiln::opdef
