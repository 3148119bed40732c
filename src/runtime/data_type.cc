// Text names of element types and devices, as used in metadata, the CLI and error messages.
#include "kiln/runtime/data_type.h"

#include <charconv>
#include <string_view>

#include "kiln/support/error.h"

namespace kiln::runtime {

namespace {

// Parses all of TEXT as a decimal number; false on anything else (empty, sign, trailing text).
bool parseNumber(std::string_view text, unsigned& out) {
  if (text.empty()) return false;
  auto r = std::from_chars(text.data(), text.data() + text.size(), out);
  return r.ec == std::errc() && r.ptr == text.data() + text.size();
}

}  // namespace

DataType DataType::parse(const std::string& name) {
  if (name == "string") return string();
  std::string_view base = name;
  unsigned lanes = 1;
  if (auto x = name.find('x'); x != std::string::npos) {
    base = std::string_view(name).substr(0, x);
    if (!parseNumber(std::string_view(name).substr(x + 1), lanes) || lanes == 0 || lanes > 65535) {
      throw Error(strCat("unknown data type '", name, "': lanes after 'x' must be 1..65535"));
    }
  }
  struct Prefix {
    std::string_view text;
    uint8_t code;
  };
  // Longest prefixes first: "uint" before "int", "bfloat" before "float".
  static constexpr Prefix kPrefixes[] = {
      {"bfloat", kDLBfloat}, {"float", kDLFloat}, {"uint", kDLUInt}, {"int", kDLInt}};
  DataType t;
  unsigned bits = 0;
  bool known = false;
  if (base == "bool") {
    t = boolean();
    bits = 8;
    known = true;
  } else {
    for (const Prefix& p : kPrefixes) {
      if (base.substr(0, p.text.size()) == p.text) {
        known = parseNumber(base.substr(p.text.size()), bits);
        t.code = p.code;
        break;
      }
    }
  }
  if (!known) {
    throw Error(strCat("unknown data type '", name,
                       "'; expected one of bool, int8..int64, uint8..uint64, float16/32/64, "
                       "bfloat16, optionally with lanes (float32x8), or string"));
  }
  t.bits = static_cast<uint8_t>(bits <= 64 ? bits : 0);
  t.lanes = static_cast<uint16_t>(lanes);
  if (!t.known()) {
    throw Error(strCat("unknown data type '", name,
                       "': bit width must be 8, 16, 32 or 64 (16 for bfloat)"));
  }
  return t;
}

bool DataType::known() const {
  if (isString()) return bits == 0 && lanes == 1;
  if (lanes == 0) return false;
  bool width = bits == 8 || bits == 16 || bits == 32 || bits == 64;
  switch (code) {
    case kDLBool:
      return bits == 8;
    case kDLBfloat:
      return bits == 16;
    case kDLInt:
    case kDLUInt:
    case kDLFloat:
      return width;
    default:
      return false;
  }
}

std::string DataType::str() const {
  std::string s;
  switch (code) {
    case kDLBool:
      s = "bool";
      break;
    case kDLInt:
      s = strCat("int", int(bits));
      break;
    case kDLUInt:
      s = strCat("uint", int(bits));
      break;
    case kDLFloat:
      s = strCat("float", int(bits));
      break;
    case kDLBfloat:
      s = strCat("bfloat", int(bits));
      break;
    case kDLKilnString:
      s = "string";
      break;
    default:
      s = strCat("type", int(code), "_", int(bits));
      break;
  }
  if (lanes != 1) s += strCat("x", lanes);
  return s;
}

std::string Device::str() const {
  const char* name = type == kDLCPU ? "cpu" : "device";
  return strCat(name, "(", id, ")");
}

}  // namespace kiln::runtime
