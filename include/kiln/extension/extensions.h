// Extensions as a compile context holds them: the libraries it loaded and the backends they added,
// described in C++ (the C ABI they were loaded through is extension_api.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kiln/extension/extension_api.h"
#include "kiln/transform/partition.h"

namespace kiln::runtime {
class SharedLibrary;
}

namespace kiln::extension {

enum class AttrType { kBool, kInt, kFloat, kString };
const char* attrTypeName(AttrType type);  // "bool", "int", "float", "string"

struct TargetAttr {
  std::string name;  // the option is --target-<backend>-<name>
  AttrType type = AttrType::kString;
  std::string defaultValue;
  std::string help;
};

struct Pattern {
  std::string name;
  std::vector<transform::ChainElement> chain;
  KilnPredicateFn predicate = nullptr;  // null: every match is claimed
};

struct Backend {
  std::string name;
  std::string help;
  std::vector<TargetAttr> attrs;
  std::vector<Pattern> patterns;
  KilnCompileFn compile = nullptr;
  void* userData = nullptr;
  std::vector<std::string> passesBefore, passesAfter;  // pipeline pass names
  std::string file;                                    // the extension that added it

  // The option of ATTR: "--target-<name>-<attr>".
  std::string optionName(const TargetAttr& attr) const;
};

// Attribute values given for one backend, by attribute name (the rest take their defaults).
using AttrValues = std::map<std::string, std::string>;

// BACKEND as the partition pass drives it: its patterns call its predicates, and claimed chains
// its compile function, through the C ABI, with VALUES as its target attributes (checked here:
// throws kiln::Error naming the option when one is unknown or has a value of the wrong type),
// for a model compiled for TRIPLE.
transform::PartitionBackend partitionBackend(const Backend& backend, const AttrValues& values,
                                             const std::string& triple);

// VALUE in canonical form if it is a valid ATTR value ("true"/"false" for booleans, the number
// for numbers); throws kiln::Error naming OPTION, the value and the type expected otherwise.
std::string checkAttrValue(const TargetAttr& attr, const std::string& value,
                           const std::string& option);

// The extensions loaded into one compile context. Loading never touches process-global kiln
// state: two sets may hold different extensions, or the same ones, in one process.
class ExtensionSet {
 public:
  ExtensionSet();
  ~ExtensionSet();
  ExtensionSet(const ExtensionSet&) = delete;
  ExtensionSet& operator=(const ExtensionSet&) = delete;

  // Loads PATH: an extension file, or every *.so file of a folder (in name order). A file this
  // set has loaded already is skipped. Throws kiln::Error naming the file, and loads nothing of
  // it, when the path does not exist, the file is not a loadable library or exports no
  // kiln_extension_* functions, was built for another extension API version (naming both), adds
  // a backend whose name is taken (naming both files) or a malformed one, or refuses to load.
  void load(const std::string& path);

  const std::vector<Backend>& backends() const { return backends_; }
  const Backend* find(const std::string& name) const;  // nullptr when no backend has NAME
  const std::vector<std::string>& files() const { return files_; }  // in load order

  // What load() does once FILE's library is open: checks the API version VERSION reports, runs
  // REGISTER_FN with kiln's host table and keeps the backends it added, every field checked
  // (names, help, attribute types and defaults, pattern chains, counts against null arrays).
  // Throws kiln::Error naming FILE and what is wrong, keeping nothing of it. Public for the
  // fuzzer of these checks, which registers backends built from its bytes.
  void registerExtension(const std::string& file, KilnExtensionVersionFn version,
                         KilnExtensionRegisterFn registerFn);

 private:
  std::vector<std::shared_ptr<runtime::SharedLibrary>> libraries_;
  std::vector<std::string> files_;
  std::vector<Backend> backends_;

  void loadFile(const std::string& file);
};

// The entries of a KILN_EXTENSION_PATH value: colon-separated, empty entries skipped.
std::vector<std::string> splitExtensionPath(const std::string& text);

}  // namespace kiln::extension
