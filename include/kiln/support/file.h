// Whole-file reads and atomic writes, with errors that name the path and the reason.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kiln/support/temp_path.h"

namespace kiln {

// Reads a whole file; throws kiln::Error naming the path and errno text when it cannot.
std::vector<uint8_t> readFile(const std::string& path);
std::string readTextFile(const std::string& path);

// A file written in pieces that appears at PATH complete or not at all: the bytes go to a unique
// temporary name beside PATH (so concurrent writers never share one), are flushed to disk, and
// are renamed over PATH by commit(). Destroyed without commit(), it leaves PATH untouched.
class AtomicFileWriter {
 public:
  // Throws kiln::Error naming PATH when its folder does not exist or cannot be written.
  explicit AtomicFileWriter(const std::string& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const void* data, size_t size);
  void commit();

 private:
  [[noreturn]] void fail(int err);
  std::string path_;
  TempPath tmp_;
  FILE* file_ = nullptr;
};

void writeFileAtomic(const std::string& path, const void* data, size_t size);
// Throws kiln::Error naming PATH's folder when it does not exist or is not a folder, so a long job
// can fail before it starts rather than when it writes.
void checkFolderOf(const std::string& path);
inline void writeFileAtomic(const std::string& path, const std::string& text) {
  writeFileAtomic(path, text.data(), text.size());
}

bool fileExists(const std::string& path);
bool isDirectory(const std::string& path);
// Creates DIR and its parents; throws kiln::Error when it cannot.
void makeDirectories(const std::string& path);

}  // namespace kiln
