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
#include <utility>

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

void checkFolderOf(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return;
  if (!fileExists(parent.string())) {
    throw Error(
        strCat("cannot write '", path, "': the folder '", parent.string(), "' does not exist"));
  }
  if (!isDirectory(parent.string())) {
    throw Error(strCat("cannot write '", path, "': '", parent.string(), "' is not a folder"));
  }
}

AtomicFileWriter::AtomicFileWriter(const std::string& path)
    : path_(path), tmp_((checkFolderOf(path), TempPath::besideFile(path))) {
  if (isDirectory(path)) throwFileError("write", path, EISDIR);
  file_ = std::fopen(tmp_.path().c_str(), "wbx");
  if (!file_) throwFileError("write", path, errno);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (file_) std::fclose(file_);
}

void AtomicFileWriter::fail(int err) {
  std::fclose(std::exchange(file_, nullptr));
  throwFileError("write", path_, err);
}

void AtomicFileWriter::write(const void* data, size_t size) {
  KILN_CHECK(file_, "write after commit of '", path_, "'");
  if (size != 0 && std::fwrite(data, 1, size, file_) != size) fail(errno ? errno : EIO);
}

void AtomicFileWriter::commit() {
  KILN_CHECK(file_, "second commit of '", path_, "'");
  if (std::fflush(file_) != 0) fail(errno);
  // Flushed to disk before the rename, so a crash leaves the old file or the new one.
  if (::fsync(::fileno(file_)) != 0 && errno != EINVAL) fail(errno);
  if (std::fclose(std::exchange(file_, nullptr)) != 0) throwFileError("write", path_, errno);
  if (std::rename(tmp_.path().c_str(), path_.c_str()) != 0) throwFileError("write", path_, errno);
  tmp_.keep();
}

void writeFileAtomic(const std::string& path, const void* data, size_t size) {
  AtomicFileWriter out(path);
  out.write(data, size);
  out.commit();
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
