// dlopen/dlsym behind an RAII handle, with dlerror()'s text in every failure.
#include "kiln/runtime/shared_library.h"

#include <dlfcn.h>
#include <elf.h>

#include <cstring>
#include <fstream>
#include <mutex>

#include "kiln/runtime/artifact_file.h"
#include "kiln/support/error.h"

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
void checkElfMachine(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char header[EI_NIDENT + 4] = {};
  if (!in.read(reinterpret_cast<char*>(header), sizeof header)) return;  // dlopen will explain
  if (std::memcmp(header, ELFMAG, SELFMAG) != 0) {
    throw Error(strCat("cannot load '", path, "': it is not a shared library (no ELF header)"));
  }
  uint16_t machine = static_cast<uint16_t>(header[EI_NIDENT + 2] | (header[EI_NIDENT + 3] << 8));
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

}  // namespace

SharedLibrary::SharedLibrary(const std::string& path) : path_(path) {
  // The loader maps segments without checking the file's size: a truncated copy would die of
  // SIGBUS inside dlopen instead of giving an error.
  verifyArtifactFile(path, /*checksum=*/false);
  checkElfMachine(path);
  // dlopen searches the library path for a name without a '/'; a user naming "model.so" means
  // the file in the current folder.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  // RTLD_LOCAL: two artifacts may export the same kernel symbols without clashing.
  std::lock_guard<std::mutex> lock(loaderMutex());
  handle_ = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* why = ::dlerror();
    throw Error(strCat("cannot load shared library '", path, "': ", why ? why : "unknown error"));
  }
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
