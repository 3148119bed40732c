// Spelling of names, strings and numbers in the IR text, shared by printer and parser.
#include "text_syntax.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "element_access.h"

namespace kiln::ir {

bool isBareNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}

std::string nameToken(const std::string& name) {
  bool bare = !name.empty();
  for (char c : name) bare = bare && isBareNameChar(c);
  return bare ? name : quoteString(name);
}

std::string quoteString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

namespace {

template <typename T>
std::string shortest(T v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string formatFloat(double v) { return shortest(v); }
std::string formatFloat32(float v) { return shortest(v); }

std::string formatElement(const NDArray& a, int64_t i) {
  DataType t = a.dtype();
  if (t.isBool()) return loadInt(a, i) ? "true" : "false";
  if (t.code == kDLFloat && t.bits == 64) return formatFloat(loadDouble(a, i));
  // float16/bfloat16 values are exact floats; their shortest float text reads back exactly.
  if (t.code == kDLFloat || t.code == kDLBfloat) {
    return formatFloat32(static_cast<float>(loadDouble(a, i)));
  }
  if (t.isUInt() && t.bits == 64) {
    return std::to_string(static_cast<uint64_t>(loadInt(a, i)));
  }
  return std::to_string(loadInt(a, i));
}

}  // namespace kiln::ir
