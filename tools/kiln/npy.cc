// The .npy array format (version 1.0-3.0 read, 1.0 written), little-endian dtypes only; text as
// NumPy's fixed-width unicode.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <optional>

#include "kiln/support/error.h"
#include "kiln/support/utf8.h"
#include "npz.h"

namespace kiln::cli {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMaxDims = 64;  // NumPy's own limit (NPY_MAXDIMS)

// The code points of element E of string array A; an error when it is not valid UTF-8.
std::u32string codePoints(const runtime::NDArray& a, int64_t e) {
  const std::string& s = a.data<std::string>()[e];
  std::u32string out;
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    size_t len = decodeUtf8(s, i, cp);
    if (len == 0) {
      throw Error(strCat("string element ", e, " is not valid UTF-8 (byte ", i,
                         "); .npy keeps text as unicode"));
    }
    out += cp;
    i += len;
  }
  return out;
}

size_t textWidth(const runtime::NDArray& a) {
  size_t width = 1;  // NumPy's narrowest text type is <U1
  for (int64_t e = 0; e < a.numel(); ++e) width = std::max(width, codePoints(a, e).size());
  return width;
}

std::string descrOf(const runtime::NDArray& array) {
  runtime::DataType t = array.dtype();
  if (t.isString()) return strCat("<U", textWidth(array));
  if (t.lanes != 1) throw Error(strCat("cannot store vector type ", t.str(), " in .npy"));
  char kind = t.isFloat() ? 'f' : t.isInt() ? 'i' : t.isUInt() ? 'u' : t.isBool() ? 'b' : '?';
  if (kind == '?') throw Error(strCat("cannot store ", t.str(), " in .npy"));
  return strCat(t.bits == 8 ? "|" : "<", kind, t.bits / 8);
}

runtime::DataType typeOf(const std::string& descr, const std::string& origin) {
  auto unsupported = [&](const std::string& expected) {
    return Error(strCat(origin, ": unsupported .npy dtype '", descr.substr(0, 64), "'; expected ",
                        expected));
  };
  if (descr.size() >= 3 && (descr[0] == '<' || descr[0] == '|' || descr[0] == '=') &&
      descr[1] == 'U' && descr.find_first_not_of("0123456789", 2) == std::string::npos) {
    return runtime::DataType::string();
  }
  if (descr.size() < 3 || std::string("<|=").find(descr[0]) == std::string::npos ||
      std::string("fiub").find(descr[1]) == std::string::npos ||
      descr.find_first_not_of("0123456789", 2) != std::string::npos) {
    throw unsupported("little-endian bool, int, uint, float or unicode text (<U)");
  }
  std::string size = descr.substr(2);
  int bytes = size == "1" ? 1 : size == "2" ? 2 : size == "4" ? 4 : size == "8" ? 8 : 0;
  char kind = descr[1];
  if (bytes == 0 || (kind == 'b' && bytes != 1) || (kind == 'f' && bytes == 1)) {
    throw unsupported("bool (|b1), int/uint of 1, 2, 4 or 8 bytes, float of 2, 4 or 8 bytes");
  }
  switch (kind) {
    case 'f':
      return runtime::DataType{kDLFloat, static_cast<uint8_t>(bytes * 8), 1};
    case 'i':
      return runtime::DataType{kDLInt, static_cast<uint8_t>(bytes * 8), 1};
    case 'u':
      return runtime::DataType{kDLUInt, static_cast<uint8_t>(bytes * 8), 1};
    default:
      return runtime::DataType::boolean();
  }
}

// What a header says; NumPy writes exactly these three keys.
struct Header {
  std::optional<std::string> descr;
  std::optional<bool> fortranOrder;
  std::optional<runtime::Shape> shape;
};

// Reads the header, a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// by hand and in one pass: it comes from the file, so it may be long and hostile.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& origin) : s_(text), origin_(origin) {}

  Header parse() {
    Header h;
    expect('{');
    while (!skipSpaceAndTry('}')) {
      size_t keyAt = pos_;
      std::string key = quoted();
      expect(':');
      if (key == "descr") {
        h.descr = quoted();
      } else if (key == "fortran_order") {
        h.fortranOrder = boolean();
      } else if (key == "shape") {
        h.shape = tuple();
      } else {
        fail(keyAt, strCat("key '", key.substr(0, 64), "'"), "'descr', 'fortran_order' or 'shape'");
      }
      if (!skipSpaceAndTry(',')) {
        expect('}');
        break;
      }
    }
    return h;
  }

 private:
  [[noreturn]] void fail(size_t at, const std::string& found, const std::string& expected) const {
    throw Error(strCat(origin_, ": malformed .npy header at byte ", at, ": found ", found,
                       ", expected ", expected, "; the header begins '", s_.substr(0, 80), "'"));
  }
  std::string next() const {
    return pos_ < s_.size() ? strCat("'", s_.substr(pos_, 16), "'") : "the end of the header";
  }
  void skipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool skipSpaceAndTry(char c) {
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!skipSpaceAndTry(c)) fail(pos_, next(), strCat("'", c, "'"));
  }
  std::string quoted() {
    skipSpace();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) {
      fail(pos_, next(), "a quoted string");
    }
    char quote = s_[pos_];
    size_t end = s_.find(quote, pos_ + 1);
    if (end == std::string::npos) fail(pos_, "a string without its closing quote", "a quote");
    std::string text = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return text;
  }
  bool boolean() {
    skipSpace();
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      if (s_.compare(pos_, std::strlen(word), word) == 0) {
        pos_ += std::strlen(word);
        return value;
      }
    }
    fail(pos_, next(), "True or False");
  }
  runtime::Shape tuple() {
    runtime::Shape shape;
    expect('(');
    while (!skipSpaceAndTry(')')) {
      if (shape.size() == kMaxDims)
        fail(pos_, strCat("more than ", kMaxDims, " dimensions"), "at most 64");
      shape.push_back(dim());
      if (!skipSpaceAndTry(',')) {
        expect(')');
        break;
      }
    }
    return shape;
  }
  int64_t dim() {
    size_t at = pos_;
    int64_t value = 0;
    auto [end, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), value);
    size_t digits = static_cast<size_t>(end - (s_.data() + pos_));
    if (digits == 0 || !std::isdigit(static_cast<unsigned char>(s_[at]))) {
      fail(at, next(), "a dimension (a number >= 0)");
    }
    if (ec != std::errc() || value >= (int64_t{1} << 62)) {
      fail(at, strCat("dimension ", s_.substr(at, digits)), "a number below 2^62");
    }
    pos_ += digits;
    return value;
  }

  const std::string& s_;
  const std::string& origin_;
  size_t pos_ = 0;
};

}  // namespace

NpyView parseNpyView(std::string_view bytes, const std::string& origin) {
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic) != 0) {
    throw Error(strCat(origin, ": not a .npy array (bad magic)"));
  }
  int major = static_cast<uint8_t>(bytes[6]);
  size_t headerLen = 0, pos = 0;
  if (major == 1) {
    headerLen = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    pos = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw Error(strCat(origin, ": truncated .npy header"));
    uint32_t len;
    std::memcpy(&len, bytes.data() + 8, 4);
    headerLen = len;
    pos = 12;
  } else {
    throw Error(strCat(origin, ": .npy version ", major, " is not supported; expected 1, 2 or 3"));
  }
  if (pos + headerLen > bytes.size()) throw Error(strCat(origin, ": truncated .npy header"));
  std::string text(bytes.substr(pos, headerLen));
  Header header = HeaderParser(text, origin).parse();
  for (const auto& [key, present] : {std::pair{"descr", header.descr.has_value()},
                                     std::pair{"fortran_order", header.fortranOrder.has_value()},
                                     std::pair{"shape", header.shape.has_value()}}) {
    if (!present) {
      throw Error(strCat(origin, ": .npy header has no '", key, "': ", text.substr(0, 200)));
    }
  }
  runtime::DataType dtype = typeOf(*header.descr, origin);
  if (*header.fortranOrder) {
    throw Error(
        strCat(origin, ": Fortran-ordered arrays are not supported; save a C-ordered array"));
  }
  const runtime::Shape& shape = *header.shape;
  size_t chars = 0;
  if (dtype.isString()) {
    auto r = std::from_chars(header.descr->data() + 2, header.descr->data() + header.descr->size(),
                             chars);
    if (r.ec != std::errc() || chars == 0 || chars > (size_t{1} << 30)) {
      throw Error(strCat(origin, ": .npy text type '", *header.descr,
                         "' has no valid width; expected <U1 to <U1073741824"));
    }
  }
  size_t need = dtype.isString() ? 4 * chars : dtype.bytes();
  bool overflow = false;
  for (int64_t d : shape) overflow = overflow || __builtin_mul_overflow(need, d, &need);
  // A wrapped product would be reported as a small (even 0) byte count the file seems to lack.
  if (overflow) {
    throw Error(strCat(origin, ": .npy shape ", runtime::shapeStr(shape), " of ", dtype.str(),
                       " is too large: its size in bytes does not fit in 64 bits"));
  }
  size_t have = bytes.size() - pos - headerLen;
  if (have < need) {
    throw Error(strCat(origin, ": .npy data is truncated: ", runtime::shapeStr(shape), " ",
                       dtype.str(), " needs ", need, " bytes, the file has ", have));
  }
  return {shape, dtype, bytes.data() + pos + headerLen, need, chars};
}

runtime::NDArray arrayOfNpy(const NpyView& v, const std::string& origin) {
  if (!v.dtype.isString()) return runtime::NDArray::fromBytes(v.shape, v.dtype, v.data, v.bytes);
  runtime::NDArray a = runtime::NDArray::empty(v.shape, v.dtype);
  auto* out = a.data<std::string>();
  for (int64_t e = 0; e < a.numel(); ++e) {
    const char* first = v.data + static_cast<size_t>(e) * 4 * v.chars;
    auto at = [&](size_t k) {
      const char* u = first + 4 * k;
      return static_cast<char32_t>(static_cast<uint8_t>(u[0]) | static_cast<uint8_t>(u[1]) << 8 |
                                   static_cast<uint8_t>(u[2]) << 16 |
                                   static_cast<char32_t>(static_cast<uint8_t>(u[3])) << 24);
    };
    size_t length = v.chars;
    while (length > 0 && at(length - 1) == 0) --length;  // NUL padding (NumPy strips trailing NULs)
    for (size_t k = 0; k < length; ++k) {
      char32_t cp = at(k);
      if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        throw Error(strCat(origin, ": text element ", e, " holds code unit ",
                           static_cast<uint32_t>(cp), ", which is not a unicode scalar value"));
      }
      appendUtf8(out[e], cp);
    }
  }
  return a;
}

runtime::NDArray parseNpy(std::string_view bytes, const std::string& origin) {
  return arrayOfNpy(parseNpyView(bytes, origin), origin);
}

std::string npyHeader(const runtime::NDArray& array) {
  std::string shape = "(";
  for (size_t i = 0; i < array.shape().size(); ++i) {
    shape += strCat(i ? ", " : "", array.shape()[i]);
  }
  shape += array.ndim() == 1 ? ",)" : ")";
  std::string header =
      strCat("{'descr': '", descrOf(array), "', 'fortran_order': False, 'shape': ", shape, ", }");
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  return out;
}

std::string npyText(const runtime::NDArray& array) {
  size_t width = textWidth(array);
  std::string out;
  out.reserve(static_cast<size_t>(array.numel()) * width * 4);
  for (int64_t e = 0; e < array.numel(); ++e) {
    std::u32string cps = codePoints(array, e);
    cps.resize(width, U'\0');
    for (char32_t cp : cps) {
      for (int k = 0; k < 4; ++k) out += static_cast<char>((cp >> (8 * k)) & 0xFF);
    }
  }
  return out;
}

std::string serializeNpy(const runtime::NDArray& array) {
  std::string out = npyHeader(array);
  if (array.dtype().isString()) return out + npyText(array);
  out.append(static_cast<const char*>(array.data()), array.nbytes());
  return out;
}

}  // namespace kiln::cli
