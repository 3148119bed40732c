// A loaded shared library (dlopen), with symbol lookup that reports what was missing.
#pragma once

#include <memory>
#include <string>

namespace kiln::runtime {

class SharedLibrary {
 public:
  // Throws kiln::Error when PATH is not an ELF file of this machine's architecture, is truncated
  // (checked before the loader maps it), with CHECKSUM when its checksum trailer is missing or
  // does not match (verifyArtifactFile), or when dlopen fails (with dlerror()'s text). The file is
  // opened once, so what was checked is what is loaded; a file exported again to a path this
  // process has loaded is loaded as the new file, never answered with the old library.
  explicit SharedLibrary(const std::string& path, bool checksum = false);
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  // nullptr when absent.
  void* findSymbol(const std::string& name) const;
  // Throws kiln::Error naming the library and symbol when absent.
  void* getSymbol(const std::string& name) const;
  const std::string& path() const { return path_; }
  // Stores VALUE in the library's pointer variable NAME; false when NAME is absent. Loads,
  // unloads and these stores share one lock, so a library mapped where another was unloaded, or
  // loaded twice, never sees two unordered writes; an equal value is not rewritten, so kernels
  // already reading it race with nothing.
  bool setPointer(const std::string& name, const void* value);

 private:
  std::string path_;
  void* handle_ = nullptr;
};

}  // namespace kiln::runtime
