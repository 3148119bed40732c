// Loading extensions through their C ABI: the version first, then their registration, whose
// backends are checked and copied, and kept only when the whole file registered cleanly.
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <type_traits>

#include "kiln/extension/extension_api.h"
#include "kiln/extension/extensions.h"
#include "kiln/runtime/shared_library.h"
#include "kiln/support/error.h"
#include "kiln/support/split.h"

// The registrar is named by the C ABI, outside kiln's namespace.
struct KilnExtensionRegistrar {
  std::string file;
  const std::vector<kiln::extension::Backend>* loaded;  // the set's backends so far
  std::vector<kiln::extension::Backend> added;
  std::string error;
};

namespace kiln::extension {
namespace {

namespace fs = std::filesystem;

bool isName(const char* text, bool dashes) {
  if (text == nullptr || !std::islower(static_cast<unsigned char>(text[0]))) return false;
  for (const char* c = text; *c != '\0'; ++c) {
    auto u = static_cast<unsigned char>(*c);
    bool ok = std::islower(u) || std::isdigit(u) || (dashes ? *c == '-' : *c == '_');
    if (!ok) return false;
  }
  return true;
}

const Backend* findIn(const std::vector<Backend>& backends, const std::string& name) {
  auto it = std::find_if(backends.begin(), backends.end(),
                         [&](const Backend& b) { return b.name == name; });
  return it == backends.end() ? nullptr : &*it;
}

TargetAttr copyAttr(const KilnTargetAttr& a, const std::string& backend) {
  std::string label = strCat("backend '", backend, "': target attribute ");
  if (!isName(a.name, true)) {
    throw Error(strCat(label, "'", a.name ? a.name : "(null)",
                       "' has no valid name; expected [a-z][a-z0-9-]*"));
  }
  TargetAttr attr;
  attr.name = a.name;
  // The code is read as its underlying integer: an extension may hold any value in the field,
  // and loading one outside the enumerators as a KilnAttrType is undefined.
  std::underlying_type_t<KilnAttrType> raw = 0;
  std::memcpy(&raw, &a.type, sizeof raw);
  auto code = static_cast<int64_t>(raw);
  if (code < KILN_ATTR_BOOL || code > KILN_ATTR_STRING) {
    throw Error(strCat(label, "'", attr.name, "' has type code ", code,
                       "; expected 0 (bool), 1 (int), 2 (float) or 3 (string)"));
  }
  attr.type = static_cast<AttrType>(code);
  if (a.help == nullptr || a.help[0] == '\0') {
    throw Error(strCat(label, "'", attr.name, "' has no help; every attribute needs a sentence"));
  }
  attr.help = a.help;
  if (a.default_value == nullptr) {
    throw Error(strCat(label, "'", attr.name, "' has no default value"));
  }
  attr.defaultValue =
      checkAttrValue(attr, a.default_value, strCat(label, "'", attr.name, "' default"));
  return attr;
}

std::vector<std::string> copyNames(const char* const* names, uint32_t count,
                                   const std::string& what) {
  if (count > 0 && names == nullptr) throw Error(strCat(what, " counts ", count, " but has none"));
  std::vector<std::string> out;
  for (uint32_t i = 0; i < count; ++i) {
    if (names[i] == nullptr || names[i][0] == '\0') throw Error(strCat(what, " has an empty name"));
    out.emplace_back(names[i]);
  }
  return out;
}

void copyPartitioning(const KilnBackend& b, Backend& backend) {
  std::string label = strCat("backend '", backend.name, "'");
  if (b.num_patterns > 0 && b.patterns == nullptr) {
    throw Error(strCat(label, " counts ", b.num_patterns, " patterns but has none"));
  }
  for (uint32_t i = 0; i < b.num_patterns; ++i) {
    const KilnPattern& p = b.patterns[i];
    if (!isName(p.name, false)) {
      throw Error(strCat(label, ": pattern ", i, " is named '", p.name ? p.name : "(null)",
                         "'; expected [a-z][a-z0-9_]*"));
    }
    Pattern pattern;
    pattern.name = p.name;
    try {
      pattern.chain = transform::parseChain(p.chain != nullptr ? p.chain : "");
    } catch (const Error& e) {
      throw Error(strCat(label, ": pattern '", pattern.name, "': ", e.what()));
    }
    pattern.predicate = p.predicate;
    backend.patterns.push_back(std::move(pattern));
  }
  if (!backend.patterns.empty() && b.compile == nullptr) {
    throw Error(strCat(label, " has patterns but no compile function"));
  }
  backend.compile = b.compile;
  backend.userData = b.user_data;
  backend.passesBefore = copyNames(b.passes_before, b.num_passes_before, label + " passes_before");
  backend.passesAfter = copyNames(b.passes_after, b.num_passes_after, label + " passes_after");
}

Backend copyBackend(const KilnBackend& b, const std::string& file) {
  constexpr size_t kV1Size = sizeof(KilnBackend);
  if (b.struct_size < kV1Size) {
    throw Error(strCat("a backend's struct_size is ", b.struct_size, "; expected at least ",
                       kV1Size, " (sizeof(KilnBackend))"));
  }
  if (!isName(b.name, false)) {
    throw Error(
        strCat("a backend is named '", b.name ? b.name : "(null)", "'; expected [a-z][a-z0-9_]*"));
  }
  Backend backend;
  backend.name = b.name;
  backend.file = file;
  if (backend.name == "llvm") {
    throw Error("a backend is named 'llvm', which is kiln's own code generator");
  }
  if (b.help == nullptr || b.help[0] == '\0') {
    throw Error(strCat("backend '", backend.name, "' has no help; it needs a sentence"));
  }
  backend.help = b.help;
  if (b.num_attrs > 0 && b.attrs == nullptr) {
    throw Error(strCat("backend '", backend.name, "' has ", b.num_attrs, " attributes but none"));
  }
  for (uint32_t i = 0; i < b.num_attrs; ++i) {
    TargetAttr attr = copyAttr(b.attrs[i], backend.name);
    for (const TargetAttr& other : backend.attrs) {
      if (other.name == attr.name) {
        throw Error(strCat("backend '", backend.name, "' has two target attributes named '",
                           attr.name, "'"));
      }
    }
    backend.attrs.push_back(std::move(attr));
  }
  copyPartitioning(b, backend);
  return backend;
}

KilnStatus addBackend(KilnExtensionRegistrar* r, const KilnBackend* b) {
  try {
    if (b == nullptr) throw Error("add_backend was given no backend");
    Backend backend = copyBackend(*b, r->file);
    const Backend* taken = findIn(*r->loaded, backend.name);
    if (taken == nullptr) taken = findIn(r->added, backend.name);
    if (taken != nullptr) {
      throw Error(strCat("backend '", backend.name, "' is already registered by '", taken->file,
                         "'; each backend name may be registered once"));
    }
    r->added.push_back(std::move(backend));
    return KILN_STATUS_OK;
  } catch (const Error& e) {
    if (r->error.empty()) r->error = e.what();
    return KILN_STATUS_ERROR;
  }
}

void setError(KilnExtensionRegistrar* r, const char* message) {
  if (r->error.empty()) r->error = message != nullptr ? message : "(no message)";
}

}  // namespace

ExtensionSet::ExtensionSet() = default;
ExtensionSet::~ExtensionSet() = default;

const Backend* ExtensionSet::find(const std::string& name) const { return findIn(backends_, name); }

void ExtensionSet::load(const std::string& path) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    throw Error(strCat("extension '", path,
                       "' does not exist; expected an extension library (.so) "
                       "or a folder of them"));
  }
  if (!fs::is_directory(status)) {
    loadFile(path);
    return;
  }
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(path)) {
    if (e.path().extension() == ".so" && e.is_regular_file()) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) loadFile(file);
}

void ExtensionSet::loadFile(const std::string& file) {
  std::string canonical = fs::weakly_canonical(file).string();
  if (std::find(files_.begin(), files_.end(), canonical) != files_.end()) return;
  auto library = std::make_shared<runtime::SharedLibrary>(canonical);
  // An extension stays mapped until the process ends (a handle never closed): libraries such as
  // oneDNN and OpenMP runtimes cannot be unloaded safely, and what they allocated when they were
  // loaded must stay reachable. Its backends still belong to the contexts that loaded it.
  static_cast<void>(dlopen(canonical.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE));
  auto version =
      reinterpret_cast<KilnExtensionVersionFn>(library->findSymbol(KILN_EXTENSION_SYMBOL_VERSION));
  auto registerFn = reinterpret_cast<KilnExtensionRegisterFn>(
      library->findSymbol(KILN_EXTENSION_SYMBOL_REGISTER));
  if (version == nullptr || registerFn == nullptr) {
    throw Error(strCat("'", canonical, "' is not a kiln extension: it does not export ",
                       KILN_EXTENSION_SYMBOL_VERSION, " and ", KILN_EXTENSION_SYMBOL_REGISTER));
  }
  registerExtension(canonical, version, registerFn);
  libraries_.push_back(std::move(library));
}

void ExtensionSet::registerExtension(const std::string& canonical, KilnExtensionVersionFn version,
                                     KilnExtensionRegisterFn registerFn) {
  uint32_t theirs = version();
  if (theirs != KILN_ABI_VERSION) {
    throw Error(strCat("extension '", canonical, "' was built for kiln extension API version ",
                       theirs, "; this kiln loads extensions of version ", KILN_ABI_VERSION,
                       " only: rebuild it against this kiln's headers"));
  }
  KilnExtensionRegistrar registrar{canonical, &backends_, {}, {}};
  KilnExtensionHost host{KILN_ABI_VERSION, addBackend, setError};
  KilnStatus status = registerFn(&host, &registrar);
  if (status != KILN_STATUS_OK || !registrar.error.empty()) {
    throw Error(strCat(
        "extension '", canonical, "' failed to load: ",
        registrar.error.empty() ? strCat("its registration returned ", status) : registrar.error));
  }
  files_.push_back(canonical);
  for (Backend& b : registrar.added) backends_.push_back(std::move(b));
}

std::vector<std::string> splitExtensionPath(const std::string& text) {
  std::vector<std::string> out;
  for (std::string& entry : splitOn(text, ':')) {
    if (!entry.empty()) out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace kiln::extension
