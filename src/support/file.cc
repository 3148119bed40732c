// File helpers whose errors name the path and the OS reason, so users see what failed and why.
#include "kiln/support/file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include "kiln/support/error.h"

namespace kiln {
namespace {

[[noreturn]] void throwFileError(const char* action, const std::string& path, int err) {
  throw Error(strCat("cannot ", action, " '", path, "': ", std::strerror(err)));
}

// Closes a FILE* on every path out, including exceptions.
struct FileCloser {
  void operator()(FILE* f) const {
    if (f) std::fclose(f);
  }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

template <typename Buffer>
Buffer readAll(const std::string& path) {
  if (isDirectory(path)) throwFileError("read", path, EISDIR);
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) throwFileError("read", path, errno);
  Buffer out;
  char chunk[1 << 16];
  for (;;) {
    size_t n = std::fread(chunk, 1, sizeof(chunk), f.get());
    out.insert(out.end(), chunk, chunk + n);
    if (n < sizeof(chunk)) break;
  }
  if (std::ferror(f.get())) throwFileError("read", path, errno ? errno : EIO);
  return out;
}

}  // namespace

std::vector<uint8_t> readFile(const std::string& path) {
  return readAll<std::vector<uint8_t>>(path);
}

std::string readTextFile(const std::string& path) { return readAll<std::string>(path); }

void writeFileAtomic(const std::string& path, const void* data, size_t size) {
  std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throwFileError("write", tmp, errno);
  int err = 0;
  if (size != 0 && std::fwrite(data, 1, size, f) != size) err = errno ? errno : EIO;
  if (std::fflush(f) != 0 && !err) err = errno;
  // Flushed to disk before the rename, so a crash leaves the old file or the new one.
  if (::fsync(::fileno(f)) != 0 && !err && errno != EINVAL) err = errno;
  if (std::fclose(f) != 0 && !err) err = errno;
  if (err) {
    std::remove(tmp.c_str());
    throwFileError("write", tmp, err);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    std::remove(tmp.c_str());
    throw Error(strCat("cannot rename '", tmp, "' to '", path, "': ", std::strerror(err)));
  }
}

bool fileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool isDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void makeDirectories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw Error(strCat("cannot create directory '", path, "': ", ec.message()));
  if (!isDirectory(path))
    throw Error(strCat("cannot create directory '", path, "': not a directory"));
}

}  // namespace kiln
