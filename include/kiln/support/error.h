// User-facing errors (kiln::Error) and internal invariant checks (KILN_CHECK) for every layer.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace kiln {

namespace detail {
// strCat's pieces: strings, characters, bools, integers and floating-point values are appended
// out of line, in the form an ostream writes them (bools as 1/0, signed and unsigned chars as
// characters, floating point as %g with 6 digits); anything else goes through an ostringstream.
// One small call per piece keeps each of strCat's many instantiations small.
void appendPiece(std::string& out, std::string_view piece);
void appendPiece(std::string& out, char c);
void appendSigned(std::string& out, long long v);
void appendUnsigned(std::string& out, unsigned long long v);
void appendDouble(std::string& out, double v);
void appendLongDouble(std::string& out, long double v);

template <typename T>
void appendStreamed(std::string& out, const T& v) {
  std::ostringstream os;
  os << v;
  out += os.str();
}

template <typename T>
void append(std::string& out, const T& v) {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    appendPiece(out, std::string_view(v));
  } else if constexpr (std::is_same_v<U, char> || std::is_same_v<U, signed char> ||
                       std::is_same_v<U, unsigned char>) {
    appendPiece(out, static_cast<char>(v));
  } else if constexpr (std::is_same_v<U, bool>) {
    appendPiece(out, v ? '1' : '0');
  } else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) {
    appendSigned(out, v);
  } else if constexpr (std::is_integral_v<U>) {
    appendUnsigned(out, v);
  } else if constexpr (std::is_same_v<U, long double>) {
    appendLongDouble(out, v);
  } else if constexpr (std::is_floating_point_v<U>) {
    appendDouble(out, v);
  } else {
    appendStreamed(out, v);
  }
}
}  // namespace detail

// Concatenates anything streamable into one string: strCat("expected ", 4, " dims"). Each piece
// reads as an ostream would write it.
template <typename... Args>
std::string strCat(const Args&... args) {
  std::string out;
  (detail::append(out, args), ...);
  return out;
}

// An error caused by the user's input (model, shapes, files, versions). The message says what was
// received and what was expected.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A broken internal invariant: a bug in kiln, never the user's fault.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {
[[noreturn]] void checkFailed(const char* file, int line, const char* condition,
                              const std::string& message);
}  // namespace detail

}  // namespace kiln

// KILN_CHECK(cond, "message parts", value, ...): throws kiln::InternalError when cond is false.
#define KILN_CHECK(cond, ...)                                                              \
  do {                                                                                     \
    if (!(cond))                                                                           \
      ::kiln::detail::checkFailed(__FILE__, __LINE__, #cond, ::kiln::strCat(__VA_ARGS__)); \
  } while (0)
