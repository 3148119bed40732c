// A private scratch directory that disappears with its owner.
#pragma once

#include <string>

namespace kiln::codegen {

class TempDir {
 public:
  // Creates a fresh directory under $TMPDIR (or /tmp); throws kiln::Error when it cannot.
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace kiln::codegen
