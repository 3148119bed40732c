// Module: a named collection of packed functions (a loaded library, a factory, an executor).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime/packed_func.h"

namespace kiln::runtime {

class ModuleNode : public std::enable_shared_from_this<ModuleNode> {
 public:
  virtual ~ModuleNode() = default;
  // A short kind name: "library", "graph_factory", "graph_executor".
  virtual const char* typeKey() const = 0;
  // The function NAME, or an empty PackedFunc when this module has none. Implementations may
  // capture shared_from_this() so a function keeps its module alive.
  virtual PackedFunc getFunction(const std::string& name) = 0;
  // Names of the functions getFunction answers, for diagnostics and `kiln inspect`.
  virtual std::vector<std::string> functionNames() const { return {}; }

  std::vector<class Module> imports;
};

class Module {
 public:
  Module() = default;
  explicit Module(std::shared_ptr<ModuleNode> node) : node_(std::move(node)) {}

  bool defined() const { return static_cast<bool>(node_); }
  ModuleNode* node() const { return node_.get(); }
  const char* typeKey() const { return node_->typeKey(); }

  // Empty PackedFunc when missing; with queryImports, searches imported modules too.
  PackedFunc getFunction(const std::string& name, bool queryImports = false) const;
  // Throws kiln::Error "module 'graph_factory' has no function 'foo' (it has: ...)".
  PackedFunc operator[](const std::string& name) const;

 private:
  std::shared_ptr<ModuleNode> node_;
};

struct LoadOptions {
  // Check the artifact's checksum (an XXH64 over the whole file) before loading it; a mismatch is
  // an error naming the sections that changed.
  bool verifyChecksum = true;
  // Extension libraries, or folders of them, searched (before the entries of KILN_EXTENSION_PATH)
  // for the runtimes of the backends the artifact's partitions are offloaded to.
  std::vector<std::string> extensions;
};

// Loads a kiln artifact (.so): checks its file (truncation, checksum) and container version and
// returns the root module, whose functions are the model factories (lib["default"](device)) plus
// "list_models".
Module loadModule(const std::string& path, const LoadOptions& options = {});

}  // namespace kiln::runtime
