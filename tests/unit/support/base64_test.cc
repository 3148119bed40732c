// Base64: RFC 4648's test vectors, every byte value round trip, and malformed text refused.
#include "kiln/support/base64.h"

#include <gtest/gtest.h>

#include "kiln/support/error.h"

namespace kiln {
namespace {

TEST(Base64, EncodesTheRfcVectors) {
  const std::pair<const char*, const char*> kVectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
  };
  for (const auto& [plain, encoded] : kVectors) {
    EXPECT_EQ(base64Encode(plain), encoded);
    EXPECT_EQ(base64Decode(encoded, "v"), plain);
  }
}

TEST(Base64, RoundTripsEveryByte) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  for (size_t n = 0; n < 5; ++n) {
    std::string s = bytes.substr(n);
    EXPECT_EQ(base64Decode(base64Encode(s), "v"), s) << n;
  }
}

TEST(Base64, RefusesMalformedText) {
  for (const char* bad : {"Zg=", "Z===", "Zm9v!A==", "Zg==Zg==", "=Zg="}) {
    try {
      base64Decode(bad, "the payload");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("the payload is not base64"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace kiln
