// Out-of-line failure path of KILN_CHECK, so the macro stays small at every call site.
#include "kiln/support/error.h"

namespace kiln::detail {

void checkFailed(const char* file, int line, const char* condition, const std::string& message) {
  throw InternalError(strCat("internal error at ", file, ":", line, ": check '", condition,
                             "' failed", message.empty() ? "" : ": ", message));
}

}  // namespace kiln::detail
