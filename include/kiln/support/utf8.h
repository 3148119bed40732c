// UTF-8, one code point at a time: for the runtime's string ops and the CLI's .npy text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kiln {

// Decodes the code point that starts at S[I] into CP and returns its length in bytes; returns 0
// when S[I] starts no valid UTF-8 sequence (a stray continuation byte, a truncated, overlong or
// surrogate sequence, or one beyond U+10FFFF).
size_t decodeUtf8(std::string_view s, size_t i, char32_t& cp);
// Appends CP (at most U+10FFFF) as UTF-8.
void appendUtf8(std::string& out, char32_t cp);

}  // namespace kiln
