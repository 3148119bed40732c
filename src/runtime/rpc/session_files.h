// A session's folder: the only place a client may write, read or load from.
#pragma once

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

 private:
  std::string root_;
};

}  // namespace kiln::runtime::rpc
