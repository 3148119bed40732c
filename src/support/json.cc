// The JSON parser and writer behind kiln::Json: strict RFC 8259 input, byte offsets in errors,
// integers kept as integers so shapes and sizes survive a round trip exactly.
#include "kiln/support/json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "kiln/support/error.h"
#include "kiln/support/utf8.h"

namespace kiln {
namespace {

constexpr int kMaxDepth = 512;  // deep enough for any metadata, shallow enough for the stack

const char* kindName(const Json& j) {
  if (j.isNull()) return "null";
  if (j.isBool()) return "a bool";
  if (j.isInt()) return "an integer";
  if (j.isNumber()) return "a number";
  if (j.isString()) return "a string";
  if (j.isArray()) return "an array";
  return "an object";
}

[[noreturn]] void kindError(const Json& j, const char* expected) {
  throw Error(strCat("JSON: expected ", expected, ", got ", kindName(j)));
}

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}

  Json parseDocument() {
    Json v = parseValue(0);
    skipSpace();
    if (pos_ != s_.size()) fail("unexpected trailing characters after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    std::string got = pos_ < s_.size() ? strCat(" (found '", describe(s_[pos_]), "')")
                                       : std::string(" (found end of input)");
    throw Error(strCat("invalid JSON at byte ", pos_, ": ", what, got));
  }

  static std::string describe(char c) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f)
      return strCat("\\x", "0123456789abcdef"[u >> 4], "0123456789abcdef"[u & 15]);
    return std::string(1, c);
  }

  void skipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool consume(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expectWord(const char* word) {
    size_t n = std::strlen(word);
    if (s_.compare(pos_, n, word) != 0) fail("expected a JSON value");
    pos_ += n;
  }

  Json parseValue(int depth) {
    if (depth > kMaxDepth) fail(strCat("nesting deeper than ", kMaxDepth, " levels"));
    skipSpace();
    if (pos_ >= s_.size()) fail("expected a JSON value");
    char c = s_[pos_];
    switch (c) {
      case '{':
        return parseObject(depth);
      case '[':
        return parseArray(depth);
      case '"':
        return Json(parseString());
      case 't':
        expectWord("true");
        return Json(true);
      case 'f':
        expectWord("false");
        return Json(false);
      case 'n':
        expectWord("null");
        return Json();
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return parseNumber();
        fail("expected a JSON value");
    }
  }

  Json parseObject(int depth) {
    ++pos_;  // '{'
    Json::Object obj;
    skipSpace();
    if (consume('}')) return Json(std::move(obj));
    for (;;) {
      skipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a string key");
      std::string key = parseString();
      skipSpace();
      if (!consume(':')) fail("expected ':' after an object key");
      obj[std::move(key)] = parseValue(depth + 1);
      skipSpace();
      if (consume('}')) return Json(std::move(obj));
      if (!consume(',')) fail("expected ',' or '}' in an object");
    }
  }

  Json parseArray(int depth) {
    ++pos_;  // '['
    Json::Array arr;
    skipSpace();
    if (consume(']')) return Json(std::move(arr));
    for (;;) {
      arr.push_back(parseValue(depth + 1));
      skipSpace();
      if (consume(']')) return Json(std::move(arr));
      if (!consume(',')) fail("expected ',' or ']' in an array");
    }
  }

  bool digitAt(size_t i) const { return i < s_.size() && s_[i] >= '0' && s_[i] <= '9'; }

  Json parseNumber() {
    size_t start = pos_;
    bool integral = true;
    consume('-');
    if (consume('0')) {
      if (digitAt(pos_)) fail("leading zeros are not allowed in numbers");
    } else if (digitAt(pos_)) {
      while (digitAt(pos_)) ++pos_;
    } else {
      fail("expected a digit");
    }
    if (consume('.')) {
      integral = false;
      if (!digitAt(pos_)) fail("expected a digit after the decimal point");
      while (digitAt(pos_)) ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      integral = false;
      ++pos_;
      if (!consume('+')) consume('-');
      if (!digitAt(pos_)) fail("expected a digit in the exponent");
      while (digitAt(pos_)) ++pos_;
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + pos_;
    if (integral) {
      int64_t i = 0;
      auto r = std::from_chars(first, last, i);
      if (r.ec == std::errc() && r.ptr == last) return Json(i);
      // Out of int64 range: fall through to a double, as other JSON readers do.
    }
    double d = 0;
    auto r = std::from_chars(first, last, d);
    if (r.ptr != last || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)) {
      pos_ = start;
      fail("malformed number");
    }
    return Json(d);
  }

  unsigned parseHex4() {
    if (pos_ + 4 > s_.size()) fail("expected four hex digits after \\u");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i, ++pos_) {
      char c = s_[pos_];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= c - '0';
      else if (c >= 'a' && c <= 'f')
        v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        v |= c - 'A' + 10;
      else
        fail("expected a hex digit in a \\u escape");
    }
    return v;
  }

  unsigned parseUnicodeEscape() {
    size_t at = pos_;
    unsigned cp = parseHex4();
    if (cp >= 0xDC00 && cp <= 0xDFFF) {
      pos_ = at;
      fail("unpaired low surrogate in a \\u escape");
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (s_.compare(pos_, 2, "\\u") != 0) fail("expected a low surrogate after a high surrogate");
      pos_ += 2;
      size_t lowAt = pos_;
      unsigned low = parseHex4();
      if (low < 0xDC00 || low > 0xDFFF) {
        pos_ = lowAt;
        fail("expected a low surrogate after a high surrogate");
      }
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    return cp;
  }

  std::string parseString() {
    ++pos_;  // '"'
    std::string out;
    for (;;) {
      if (pos_ >= s_.size()) fail("unterminated string");
      char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      if (pos_ >= s_.size()) fail("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u':
          appendUtf8(out, static_cast<char32_t>(parseUnicodeEscape()));
          break;
        default:
          --pos_;
          fail("invalid escape");
      }
    }
  }

  const std::string& s_;
  size_t pos_ = 0;
};

void writeString(std::string& out, const std::string& s) {
  out += '"';
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
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void writeDouble(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";  // JSON has no NaN or infinity
    return;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof(buf), d);
  std::string text(buf, r.ptr);
  // Keep a visible fraction so the value reads back as a double, not an integer.
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  out += text;
}

}  // namespace

bool Json::asBool() const {
  if (!isBool()) kindError(*this, "a bool");
  return std::get<bool>(v_);
}

int64_t Json::asInt() const {
  if (!isInt()) kindError(*this, "an integer");
  return std::get<int64_t>(v_);
}

double Json::asDouble() const {
  if (isInt()) return static_cast<double>(std::get<int64_t>(v_));
  if (!isNumber()) kindError(*this, "a number");
  return std::get<double>(v_);
}

const std::string& Json::asString() const {
  if (!isString()) kindError(*this, "a string");
  return std::get<std::string>(v_);
}

const Json::Array& Json::asArray() const {
  if (!isArray()) kindError(*this, "an array");
  return std::get<Array>(v_);
}

Json::Array& Json::asArray() {
  if (!isArray()) kindError(*this, "an array");
  return std::get<Array>(v_);
}

const Json::Object& Json::asObject() const {
  if (!isObject()) kindError(*this, "an object");
  return std::get<Object>(v_);
}

Json::Object& Json::asObject() {
  if (!isObject()) kindError(*this, "an object");
  return std::get<Object>(v_);
}

const Json& Json::at(const std::string& key) const {
  const Object& obj = asObject();
  auto it = obj.find(key);
  if (it == obj.end()) throw Error(strCat("JSON: missing key '", key, "'"));
  return it->second;
}

bool Json::contains(const std::string& key) const {
  return isObject() && std::get<Object>(v_).count(key) != 0;
}

Json& Json::operator[](const std::string& key) {
  if (isNull()) v_ = Object{};
  return asObject()[key];
}

const Json& Json::operator[](size_t i) const {
  const Array& arr = asArray();
  if (i >= arr.size()) {
    throw Error(strCat("JSON: index ", i, " is out of range for an array of ", arr.size()));
  }
  return arr[i];
}

Json& Json::operator[](size_t i) {
  const Json& self = *this;
  return const_cast<Json&>(self[i]);
}

size_t Json::size() const {
  if (isArray()) return std::get<Array>(v_).size();
  if (isObject()) return std::get<Object>(v_).size();
  if (isNull()) return 0;
  kindError(*this, "an array or an object");
}

void Json::push(Json v) {
  if (isNull()) v_ = Array{};
  asArray().push_back(std::move(v));
}

namespace {

void write(std::string& out, const Json& j, int indent, int level) {
  auto newline = [&](int lvl) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent) * lvl, ' ');
  };
  if (j.isNull()) {
    out += "null";
  } else if (j.isBool()) {
    out += j.asBool() ? "true" : "false";
  } else if (j.isInt()) {
    out += std::to_string(j.asInt());
  } else if (j.isNumber()) {
    writeDouble(out, j.asDouble());
  } else if (j.isString()) {
    writeString(out, j.asString());
  } else if (j.isArray()) {
    const auto& arr = j.asArray();
    out += '[';
    for (size_t i = 0; i < arr.size(); ++i) {
      if (i) out += ',';
      newline(level + 1);
      write(out, arr[i], indent, level + 1);
    }
    if (!arr.empty()) newline(level);
    out += ']';
  } else {
    const auto& obj = j.asObject();
    out += '{';
    bool first = true;
    for (const auto& [key, value] : obj) {
      if (!first) out += ',';
      first = false;
      newline(level + 1);
      writeString(out, key);
      out += indent < 0 ? ":" : ": ";
      write(out, value, indent, level + 1);
    }
    if (!obj.empty()) newline(level);
    out += '}';
  }
}

}  // namespace

std::string Json::dump(int indent) const {
  std::string out;
  write(out, *this, indent, 0);
  return out;
}

Json Json::parse(const std::string& text) { return Parser(text).parseDocument(); }

}  // namespace kiln
