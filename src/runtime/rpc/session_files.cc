// Path checks for a session's folder: no way out through '..', absolute paths or symlinks.
#include "session_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "kiln/support/error.h"
#include "kiln/support/split.h"

namespace kiln::runtime::rpc {
namespace {

std::vector<std::string> components(const std::string& path) { return splitOn(path, '/'); }

}  // namespace

std::string SessionFiles::resolve(const std::string& path, bool createParents) const {
  auto refuse = [&](const std::string& why) -> std::string {
    throw Error(strCat("path '", path, "' is refused: ", why,
                       "; expected a relative path inside the session folder"));
  };
  if (path.empty()) return refuse("it is empty");
  if (path.size() > 4096) return refuse("it is longer than 4096 bytes");
  if (path.find('\0') != std::string::npos) return refuse("it holds a NUL byte");
  if (path.front() == '/') return refuse("it is absolute");
  std::vector<std::string> parts = components(path);
  std::string full = root_;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    if (part.empty() || part == "." || part == "..") {
      return refuse(strCat("component '", part, "' is not a plain name"));
    }
    full += "/" + part;
    struct stat st {};
    if (::lstat(full.c_str(), &st) == 0) {
      if (S_ISLNK(st.st_mode)) return refuse(strCat("'", part, "' is a symbolic link"));
      if (i + 1 < parts.size() && !S_ISDIR(st.st_mode)) {
        return refuse(strCat("'", part, "' is not a folder"));
      }
    } else if (i + 1 < parts.size()) {
      if (!createParents) return refuse(strCat("folder '", part, "' does not exist"));
      if (::mkdir(full.c_str(), 0700) != 0 && errno != EEXIST) {
        throw Error(strCat("cannot create folder '", full, "': ", std::strerror(errno)));
      }
    }
  }
  return full;
}

std::vector<std::string> SessionFiles::list() const {
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(root_, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) {
      files.push_back(std::filesystem::relative(it->path(), root_, ec).string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace kiln::runtime::rpc
