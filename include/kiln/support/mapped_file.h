// A whole file mapped read-only: large inputs and artifacts are read where they lie, without a
// copy in the heap, and released as soon as their last user is done.
#pragma once

#include <cstdint>
#include <string>

namespace kiln {

class MappedFile {
 public:
  // Throws kiln::Error naming PATH when it cannot be opened, is not a regular file or cannot be
  // mapped.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return static_cast<const unsigned char*>(data_); }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* data_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace kiln
