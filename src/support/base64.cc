// Base64 (RFC 4648, with padding).
#include "kiln/support/base64.h"

#include <array>

#include "kiln/support/error.h"

namespace kiln {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::array<int, 256> decodeTable() {
  std::array<int, 256> table{};
  table.fill(-1);
  for (int i = 0; i < 64; ++i) table[static_cast<unsigned char>(kAlphabet[i])] = i;
  return table;
}

}  // namespace

std::string base64Encode(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t word = 0;
    for (size_t k = 0; k < 3; ++k) {
      word = (word << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0U);
    }
    for (size_t k = 0; k < 4; ++k) {
      out += k <= n ? kAlphabet[(word >> (18 - 6 * k)) & 63U] : '=';
    }
  }
  return out;
}

std::string base64Decode(const std::string& text, const std::string& what) {
  static const std::array<int, 256> kTable = decodeTable();
  if (text.size() % 4 != 0) {
    throw Error(
        strCat(what, " is not base64: its length ", text.size(), " is not a multiple of 4"));
  }
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    bool last = i + 4 == text.size();
    size_t pad = 0;
    uint32_t word = 0;
    for (size_t k = 0; k < 4; ++k) {
      char c = text[i + k];
      int v = kTable[static_cast<unsigned char>(c)];
      if (c == '=' && last && k >= 2 && (k == 3 || text[i + 3] == '=')) {
        ++pad;
        v = 0;
      } else if (v < 0 || pad > 0) {
        throw Error(strCat(what, " is not base64: unexpected character at offset ", i + k));
      }
      word = (word << 6) | static_cast<uint32_t>(v);
    }
    for (size_t k = 0; k < 3 - pad; ++k) out += static_cast<char>((word >> (16 - 8 * k)) & 0xFFU);
  }
  return out;
}

}  // namespace kiln
