// User-facing errors (kiln::Error) and internal invariant checks (KILN_CHECK) for every layer.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace kiln {

// Concatenates anything streamable into one string: strCat("expected ", 4, " dims").
template <typename... Args>
std::string strCat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
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
