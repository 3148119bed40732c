// Base64 (RFC 4648, with padding): how binary payloads travel inside JSON and the text IR.
#pragma once

#include <string>

namespace kiln {

std::string base64Encode(const std::string& bytes);
// Throws kiln::Error naming WHAT when TEXT is not padded base64.
std::string base64Decode(const std::string& text, const std::string& what);

}  // namespace kiln
