// Little-endian, length-prefixed encoding shared by the artifact container and the params format;
// the reader bounds-checks every field so outside bytes can never make it read past the end.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "kiln/support/error.h"

namespace kiln::runtime {

class ByteWriter {
 public:
  void u8(uint8_t v) { out_ += static_cast<char>(v); }
  void u16(uint16_t v) { uint(v, 2); }
  void u32(uint32_t v) { uint(v, 4); }
  void u64(uint64_t v) { uint(v, 8); }
  void raw(const void* data, size_t size) { out_.append(static_cast<const char*>(data), size); }
  // u32 length + bytes: names and JSON text.
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    raw(s.data(), s.size());
  }
  // u64 length + bytes: weights, which may exceed 4 GiB.
  void blob(const std::string& s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  size_t size() const { return out_.size(); }
  // The bytes so far; the writer starts over empty.
  std::string take() {
    std::string bytes = std::move(out_);
    out_.clear();
    return bytes;
  }

 private:
  void uint(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xFF);
  }
  std::string out_;
};

class ByteReader {
 public:
  // WHAT names the bytes in errors: "artifact 'lib.so'".
  ByteReader(const void* data, size_t size, std::string what)
      : p_(static_cast<const uint8_t*>(data)), size_(size), what_(std::move(what)) {}

  size_t offset() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }
  const std::string& what() const { return what_; }

  uint8_t u8(const char* field) { return static_cast<uint8_t>(uint(1, field)); }
  uint16_t u16(const char* field) { return static_cast<uint16_t>(uint(2, field)); }
  uint32_t u32(const char* field) { return static_cast<uint32_t>(uint(4, field)); }
  uint64_t u64(const char* field) { return uint(8, field); }
  // Returns a pointer to SIZE bytes inside the buffer and skips them.
  const uint8_t* raw(uint64_t size, const char* field) {
    need(size, field);
    const uint8_t* at = p_ + pos_;
    pos_ += size;
    return at;
  }
  std::string str(const char* field) { return bytes(u32(field), field); }
  std::string blob(const char* field) { return bytes(u64(field), field); }

  [[noreturn]] void fail(const std::string& why) const { failAt(pos_, why); }
  [[noreturn]] void failAt(size_t offset, const std::string& why) const {
    throw Error(strCat(what_, " is malformed at byte offset ", offset, ": ", why));
  }

 private:
  void need(uint64_t size, const char* field) const {
    if (size > remaining()) {
      fail(strCat("truncated: ", field, " needs ", size, " bytes but only ", remaining(),
                  " remain"));
    }
  }
  uint64_t uint(int bytes, const char* field) {
    need(bytes, field);
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p_[pos_ + i]) << (8 * i);
    pos_ += bytes;
    return v;
  }
  std::string bytes(uint64_t size, const char* field) {
    const uint8_t* at = raw(size, field);
    return std::string(reinterpret_cast<const char*>(at), size);
  }

  const uint8_t* p_;
  size_t size_;
  size_t pos_ = 0;
  std::string what_;
};

}  // namespace kiln::runtime
