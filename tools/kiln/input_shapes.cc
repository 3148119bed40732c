// The --input-shapes syntax shared by compile (and later tune): whitespace-separated name:[dims].
// A hand-written scanner: std::regex recurses once per character and overflows the stack on a
// long argument.
#include "input_shapes.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>

#include "exit_codes.h"
#include "kiln/opdef/dim_bounds.h"

namespace kiln::cli {
namespace {

bool isSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The first position at or after POS in TEXT that is not a space (TEXT's size if none is).
size_t skipSpaces(std::string_view text, size_t pos) {
  while (pos < text.size() && isSpace(text[pos])) ++pos;
  return pos;
}

[[noreturn]] void cannotParse(std::string_view rest, const std::string& why) {
  throw UsageError(strCat("--input-shapes: cannot parse '", std::string(rest), "' (", why,
                          "); expected name:[d0,d1,...] entries separated by spaces, e.g. "
                          "\"input:[1,3,224,224]\" or \"input_ids:[1,seq]\""));
}

// Reads one "name:[d0,d1,...]" at the start of TEXT (no leading spaces) into NAME and SHAPE;
// returns the number of characters it took.
size_t scanEntry(std::string_view text, std::string& name, opdef::DimList& shape) {
  size_t open = text.find(":[");
  size_t space = std::find_if(text.begin(), text.end(), isSpace) - text.begin();
  if (open == std::string_view::npos || open > space) cannotParse(text, "no ':[' after a name");
  if (open == 0) cannotParse(text, "the name is empty");
  name = std::string(text.substr(0, open));
  size_t close = text.find(']', open);
  if (close == std::string_view::npos) cannotParse(text, "no closing ']'");
  std::string_view dims = text.substr(open + 2, close - open - 2);
  std::string what = strCat("--input-shapes '", name, "'");
  shape.clear();
  size_t pos = skipSpaces(dims, 0);
  while (pos < dims.size()) {  // a scalar has no dimensions: "x:[]"
    size_t end = pos;
    while (end < dims.size() && dims[end] != ',' && !isSpace(dims[end])) ++end;
    shape.push_back(parseDim(std::string(dims.substr(pos, end - pos)), what));
    pos = skipSpaces(dims, end);
    if (pos == dims.size()) break;
    if (dims[pos] != ',') cannotParse(text, "dimensions are separated by commas");
    pos = skipSpaces(dims, pos + 1);
    if (pos == dims.size()) cannotParse(text, "a comma is not followed by a dimension");
  }
  return close + 1;
}

}  // namespace

opdef::Dim parseDim(const std::string& text, const std::string& what) {
  if (opdef::isSymbolName(text)) return opdef::Dim::symbol(text);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0 ||
      value >= (int64_t{1} << 62)) {
    throw UsageError(strCat(what, ": dimension '", text,
                            "' is neither a number between 0 and 2^62 nor a symbol name (a letter "
                            "or '_', then letters, digits and '_')"));
  }
  return value;
}

std::map<std::string, opdef::DimList> parseInputShapes(const std::string& text) {
  std::map<std::string, opdef::DimList> shapes;
  std::string_view rest = text;
  while (true) {
    rest.remove_prefix(skipSpaces(rest, 0));
    if (rest.empty()) break;
    std::string name;
    opdef::DimList shape;
    rest.remove_prefix(scanEntry(rest, name, shape));
    rest.remove_prefix(skipSpaces(rest, 0));
    if (!rest.empty() && rest.front() == ',') rest.remove_prefix(1);  // "a:[1], b:[2]"
    if (!shapes.emplace(name, std::move(shape)).second) {
      throw UsageError(strCat("--input-shapes: input '", name, "' is given twice"));
    }
  }
  return shapes;
}

opdef::DimBounds parseDimBoundsOption(const std::string& text) {
  try {
    return opdef::parseDimBounds(text);
  } catch (const Error& e) {
    throw UsageError(strCat("--dim-bounds: ", e.what()));
  }
}

}  // namespace kiln::cli
