// dlopen/dlsym behind an RAII handle, with dlerror()'s text in every failure.
#include "kiln/runtime/shared_library.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "kiln/runtime/artifact_file.h"
#include "kiln/support/error.h"
#include "kiln/support/mapped_file.h"

namespace kiln::runtime {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#elif defined(__arm__)
constexpr uint16_t kHostMachine = EM_ARM;
#elif defined(__i386__)
constexpr uint16_t kHostMachine = EM_386;
#else
constexpr uint16_t kHostMachine = 0;  // unknown: leave the check to dlopen
#endif

const char* machineName(uint16_t machine) {
  switch (machine) {
    case EM_X86_64:
      return "x86_64";
    case EM_AARCH64:
      return "aarch64";
    case EM_ARM:
      return "arm";
    case EM_386:
      return "i386";
    case EM_RISCV:
      return "riscv";
    default:
      return "another architecture";
  }
}

// dlopen reports a library for another CPU as "cannot open shared object file: No such file or
// directory"; reading the ELF header first lets the error say what the file really is.
void checkElfMachine(const unsigned char* data, uint64_t size, const std::string& path) {
  if (size < EI_NIDENT + 4) return;  // dlopen will explain
  if (std::memcmp(data, ELFMAG, SELFMAG) != 0) {
    throw Error(strCat("cannot load '", path, "': it is not a shared library (no ELF header)"));
  }
  uint16_t machine = static_cast<uint16_t>(data[EI_NIDENT + 2] | (data[EI_NIDENT + 3] << 8));
  if (kHostMachine != 0 && machine != kHostMachine) {
    throw Error(strCat("cannot load '", path, "': it holds code for ", machineName(machine),
                       " (ELF machine ", machine, "); this machine is ", machineName(kHostMachine),
                       ". Compile the model for this machine (kiln compile --target)"));
  }
}

// Orders dlopen, dlclose and setPointer across threads (see setPointer).
std::mutex& loaderMutex() {
  static std::mutex mutex;
  return mutex;
}

struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId& o) const { return dev == o.dev && ino == o.ino; }
};

// The file each name handed to dlopen led to when it was loaded. The loader answers a name it
// still has loaded with that library, even when the name now leads to another file (an artifact
// exported again to the same path): such a file is loaded under a name of its own instead.
// Guarded by loaderMutex.
std::map<std::string, FileId>& loadedFiles() {
  static std::map<std::string, FileId> files;
  return files;
}

// Whether loading NAME would return a library loaded from another file than ID.
bool nameIsStale(const std::string& name, const FileId& id) {
  void* existing = ::dlopen(name.c_str(), RTLD_NOLOAD | RTLD_LAZY);
  if (existing == nullptr) return false;
  ::dlclose(existing);
  auto it = loadedFiles().find(name);
  return it == loadedFiles().end() || !(it->second == id);
}

// A file descriptor closed with its scope.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// A name that has never been loaded, for the file open as FD: a symbolic link to it in the
// temporary folder, made now and removed once the loader has mapped the file.
std::string freshName(int fd, const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  const char* tmp = std::getenv("TMPDIR");
  std::string base = path.substr(path.rfind('/') + 1);
  std::string name = strCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/kiln-load-",
                            ::getpid(), "-", counter.fetch_add(1), "-", base);
  std::string target = strCat("/proc/self/fd/", fd);
  if (::symlink(target.c_str(), name.c_str()) != 0) {
    throw Error(strCat("cannot load '", path, "' again after it changed: cannot create the link '",
                       name, "': ", std::strerror(errno)));
  }
  return name;
}

}  // namespace

SharedLibrary::SharedLibrary(const std::string& path, bool checksum) : path_(path) {
  // Opened once: the checks and the loader see this file, whatever happens to PATH meanwhile.
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) {
    throw Error(strCat("cannot load shared library '", path, "': ", std::strerror(errno)));
  }
  struct stat st {};
  ::fstat(file.fd, &st);
  FileId id{st.st_dev, st.st_ino};
  std::string pinned = strCat("/proc/self/fd/", file.fd);
  bool viaProc = ::access(pinned.c_str(), R_OK) == 0;
  {
    // The loader maps segments without checking the file's size: a truncated copy would die of
    // SIGBUS inside dlopen instead of giving an error.
    MappedFile mapped(viaProc ? pinned : path);
    verifyArtifactBytes(mapped.data(), mapped.size(), path, checksum);
    checkElfMachine(mapped.data(), mapped.size(), path);
  }
  // dlopen searches the library path for a name without a '/'; a user naming "model.so" means
  // the file in the current folder.
  std::string name = path.find('/') == std::string::npos ? "./" + path : path;
  // RTLD_LOCAL: two artifacts may export the same kernel symbols without clashing.
  std::lock_guard<std::mutex> lock(loaderMutex());
  bool stale = nameIsStale(name, id);
  if (stale && !viaProc) {
    throw Error(strCat("cannot load '", path,
                       "': this process loaded another file under that path ",
                       "before, and without /proc it cannot load the new one beside it; restart "
                       "the process or load the file under a new path"));
  }
  std::string link = stale ? freshName(file.fd, path) : "";
  handle_ = ::dlopen(stale ? link.c_str() : name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (stale) ::unlink(link.c_str());
  if (!handle_) {
    const char* why = ::dlerror();
    throw Error(strCat("cannot load shared library '", path, "': ", why ? why : "unknown error"));
  }
  if (!stale) loadedFiles()[name] = id;  // a link's name is never asked for again
}

SharedLibrary::~SharedLibrary() {
  if (!handle_) return;
  std::lock_guard<std::mutex> lock(loaderMutex());
  ::dlclose(handle_);
}

bool SharedLibrary::setPointer(const std::string& name, const void* value) {
  std::lock_guard<std::mutex> lock(loaderMutex());
  void* slot = findSymbol(name);
  if (!slot) return false;
  auto* pointer = static_cast<const void**>(slot);
  if (*pointer != value) *pointer = value;
  return true;
}

void* SharedLibrary::findSymbol(const std::string& name) const {
  ::dlerror();  // clear stale state
  return ::dlsym(handle_, name.c_str());
}

void* SharedLibrary::getSymbol(const std::string& name) const {
  ::dlerror();
  void* p = ::dlsym(handle_, name.c_str());
  if (!p) {
    const char* why = ::dlerror();
    throw Error(strCat("shared library '", path_, "' has no symbol '", name, "'",
                       why ? strCat(" (", why, ")") : std::string()));
  }
  return p;
}

}  // namespace kiln::runtime
