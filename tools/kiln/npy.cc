// The .npy array format (version 1.0-3.0 read, 1.0 written), little-endian dtypes only.
#include <cstring>
#include <regex>

#include "input_shapes.h"
#include "kiln/support/error.h"
#include "npz.h"

namespace kiln::cli {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

std::string descrOf(runtime::DataType t) {
  if (t.lanes != 1) throw Error(strCat("cannot store vector type ", t.str(), " in .npy"));
  char kind = t.isFloat() ? 'f' : t.isInt() ? 'i' : t.isUInt() ? 'u' : t.isBool() ? 'b' : '?';
  if (kind == '?') throw Error(strCat("cannot store ", t.str(), " in .npy"));
  return strCat(t.bits == 8 ? "|" : "<", kind, t.bits / 8);
}

runtime::DataType typeOf(const std::string& descr, const std::string& origin) {
  std::smatch m;
  static const std::regex re("^([<|=])([fiub])([0-9]+)$");
  if (!std::regex_match(descr, m, re)) {
    throw Error(strCat(origin, ": unsupported .npy dtype '", descr,
                       "'; expected little-endian bool, int, uint or float"));
  }
  std::string size = m[3];
  int bytes = size == "1" ? 1 : size == "2" ? 2 : size == "4" ? 4 : size == "8" ? 8 : 0;
  char kind = m[2].str()[0];
  if (bytes == 0 || (kind == 'b' && bytes != 1) || (kind == 'f' && bytes == 1)) {
    throw Error(strCat(origin, ": unsupported .npy dtype '", descr,
                       "'; expected bool (|b1), int/uint of 1, 2, 4 or 8 bytes, float of 2, 4 "
                       "or 8 bytes"));
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

runtime::Shape parseShape(const std::string& text, const std::string& origin) {
  runtime::Shape shape;
  static const std::regex num("[0-9]+");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), num); it != std::sregex_iterator();
       ++it) {
    shape.push_back(parseDim(it->str(), origin + ": .npy shape"));
  }
  return shape;
}

std::string field(const std::string& header, const std::string& key, const std::string& pattern,
                  const std::string& origin) {
  std::smatch m;
  std::regex re("'" + key + "'\\s*:\\s*" + pattern);
  if (!std::regex_search(header, m, re)) {
    throw Error(strCat(origin, ": .npy header has no '", key, "': ", header));
  }
  return m[1];
}

}  // namespace

runtime::NDArray parseNpy(const std::string& bytes, const std::string& origin) {
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
  std::string header = bytes.substr(pos, headerLen);
  runtime::DataType dtype = typeOf(field(header, "descr", "'([^']*)'", origin), origin);
  if (field(header, "fortran_order", "(True|False)", origin) == "True") {
    throw Error(
        strCat(origin, ": Fortran-ordered arrays are not supported; save a C-ordered array"));
  }
  runtime::Shape shape = parseShape(field(header, "shape", "\\(([^)]*)\\)", origin), origin);
  size_t need = dtype.bytes();
  bool overflow = false;
  for (int64_t d : shape) overflow = overflow || __builtin_mul_overflow(need, d, &need);
  size_t have = bytes.size() - pos - headerLen;
  if (overflow || have < need) {
    throw Error(strCat(origin, ": .npy data is truncated: ", runtime::shapeStr(shape), " ",
                       dtype.str(), " needs ", need, " bytes, the file has ", have));
  }
  return runtime::NDArray::fromBytes(shape, dtype, bytes.data() + pos + headerLen, need);
}

std::string serializeNpy(const runtime::NDArray& array) {
  std::string shape = "(";
  for (size_t i = 0; i < array.shape().size(); ++i) {
    shape += strCat(i ? ", " : "", array.shape()[i]);
  }
  shape += array.ndim() == 1 ? ",)" : ")";
  std::string header = strCat("{'descr': '", descrOf(array.dtype()),
                              "', 'fortran_order': False, 'shape': ", shape, ", }");
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(static_cast<const char*>(array.data()), array.nbytes());
  return out;
}

}  // namespace kiln::cli
