// strCat's out-of-line pieces, and the failure path of KILN_CHECK, so the macro stays small at
// every call site.
#include "kiln/support/error.h"

#include <charconv>
#include <cstdio>

namespace kiln::detail {

void appendPiece(std::string& out, std::string_view piece) { out.append(piece); }

void appendPiece(std::string& out, char c) { out.push_back(c); }

void appendSigned(std::string& out, long long v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

void appendUnsigned(std::string& out, unsigned long long v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// An ostream's default float format is printf's %g at precision 6.
void appendDouble(std::string& out, double v) {
  char buf[32];
  int n = std::snprintf(buf, sizeof buf, "%g", v);
  out.append(buf, static_cast<size_t>(n));
}

void appendLongDouble(std::string& out, long double v) {
  char buf[48];
  int n = std::snprintf(buf, sizeof buf, "%Lg", v);
  out.append(buf, static_cast<size_t>(n));
}

void checkFailed(const char* file, int line, const char* condition, const std::string& message) {
  throw InternalError(strCat("internal error at ", file, ":", line, ": check '", condition,
                             "' failed", message.empty() ? "" : ": ", message));
}

}  // namespace kiln::detail
