// A session's folder: the only place a client may write, read or load from.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kiln::runtime::rpc {

class SessionFiles {
 public:
  explicit SessionFiles(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }
  // ROOT/PATH for a client-given relative PATH. Refused with kiln::Error: empty, absolute, '..'
  // or '.' components, NUL bytes, and any existing component that is a symlink (so nothing
  // resolves outside ROOT). With CREATE_PARENTS, missing folders on the way are made.
  std::string resolve(const std::string& path, bool createParents) const;
  // Every regular file under ROOT, relative, sorted.
  std::vector<std::string> list() const;
  // resolve(PATH) for loading a library. The system loader finds a library it has loaded by its
  // path before it looks at the file, so a different file uploaded later under a path already
  // loaded would silently run the old code: that is refused, naming the path.
  std::string resolveForLoad(const std::string& path) const;
  // FULL (from resolveForLoad) was loaded.
  void markLoaded(const std::string& full);

 private:
  std::string root_;
  std::map<std::string, std::pair<dev_t, ino_t>> loaded_;  // path -> the file it was
};

}  // namespace kiln::runtime::rpc
