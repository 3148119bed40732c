// mmap behind RAII, with errors that name the file and the OS reason.
#include "kiln/support/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kiln/support/error.h"

namespace kiln {

MappedFile::MappedFile(const std::string& path) : path_(path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(strCat("cannot read '", path, "': ", std::strerror(errno)));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(strCat("cannot read '", path, "': not a regular file"));
  }
  size_ = static_cast<uint64_t>(st.st_size);
  if (size_ != 0) {
    data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data_ == MAP_FAILED) {
      int err = errno;
      data_ = nullptr;
      ::close(fd);
      throw Error(strCat("cannot read '", path, "': ", std::strerror(err)));
    }
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

}  // namespace kiln
