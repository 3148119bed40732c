// dlopen/dlsym behind an RAII handle, with dlerror()'s text in every failure.
#include "kiln/runtime/shared_library.h"

#include <dlfcn.h>

#include "kiln/support/error.h"

namespace kiln::runtime {

SharedLibrary::SharedLibrary(const std::string& path) : path_(path) {
  // dlopen searches the library path for a name without a '/'; a user naming "model.so" means
  // the file in the current folder.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  // RTLD_LOCAL: two artifacts may export the same kernel symbols without clashing.
  handle_ = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* why = ::dlerror();
    throw Error(strCat("cannot load shared library '", path, "': ", why ? why : "unknown error"));
  }
}

SharedLibrary::~SharedLibrary() {
  if (handle_) ::dlclose(handle_);
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
