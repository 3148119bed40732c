// Function lookup on modules, with a "did you mean one of these" message when a name is missing.
#include "kiln/runtime/module.h"

#include "kiln/support/error.h"

namespace kiln::runtime {

namespace {

PackedFunc findIn(const Module& m, const std::string& name, bool queryImports, int depth) {
  if (!m.defined() || depth > 64) return {};  // the depth bound guards against import cycles
  if (PackedFunc f = m.node()->getFunction(name)) return f;
  if (!queryImports) return {};
  for (const Module& import : m.node()->imports) {
    if (PackedFunc f = findIn(import, name, true, depth + 1)) return f;
  }
  return {};
}

}  // namespace

PackedFunc Module::getFunction(const std::string& name, bool queryImports) const {
  if (!node_) throw Error(strCat("cannot look up '", name, "' in a null module"));
  return findIn(*this, name, queryImports, 0);
}

PackedFunc Module::operator[](const std::string& name) const {
  PackedFunc f = getFunction(name, true);
  if (f) return f;
  std::string available;
  for (const std::string& n : node_->functionNames())
    available += (available.empty() ? "" : ", ") + n;
  throw Error(strCat("module '", typeKey(), "' has no function '", name,
                     "' (it has: ", available.empty() ? "none listed" : available, ")"));
}

}  // namespace kiln::runtime
