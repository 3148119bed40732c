// Paths compared as the file system sees them: equivalent() for existing files (hard and symbolic
// links included), the normalised absolute path otherwise.
#include "path_clash.h"

#include <filesystem>

#include "exit_codes.h"
#include "kiln/support/file.h"

namespace kiln::cli {

bool samePath(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  std::error_code ec;
  if (std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec)) {
    bool same = std::filesystem::equivalent(a, b, ec);
    return !ec && same;
  }
  auto normal = [](const std::string& p) {
    std::error_code ignored;
    std::filesystem::path full = std::filesystem::weakly_canonical(p, ignored);
    return (full.empty() ? std::filesystem::absolute(p, ignored) : full).lexically_normal();
  };
  return normal(a) == normal(b);
}

void refuseOverwrite(const std::string& outputOption, const std::string& output,
                     const std::string& inputOption, const std::string& input) {
  if (samePath(output, input)) {
    throw UsageError(strCat(outputOption, " '", output, "' is the same path as ", inputOption, " '",
                            input, "', which would be overwritten; write the output elsewhere"));
  }
}

void requireOutputFolder(const std::string& path) {
  try {
    checkFolderOf(path);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

}  // namespace kiln::cli
