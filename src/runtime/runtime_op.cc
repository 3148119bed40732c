// The registry of the ops the runtime executes itself (filled by libkiln_runtime_ops as it
// loads), and the defaults of RuntimeOpContext.
#include "kiln/runtime/runtime_op.h"

#include <atomic>

#include "companion_library.h"
#include "kiln/support/error.h"

namespace kiln::runtime {
namespace {

std::atomic<const RuntimeOpTable*> gTable{nullptr};

// The registered table; loads libkiln_runtime_ops.so from beside the core when none is.
const RuntimeOpTable* table() {
  const RuntimeOpTable* t = gTable.load(std::memory_order_acquire);
  if (t == nullptr) {
    loadCompanionLibrary(kRuntimeOpsLibrary);
    t = gTable.load(std::memory_order_acquire);
  }
  return t;
}

}  // namespace

bool RuntimeOpContext::hasOutput(size_t) const { return true; }

Subgraph& RuntimeOpContext::body(const std::string& attr) {
  throw Error(strCat(label(), ": has no compiled body '", attr,
                     "' (control flow runs only in a graph executor)"));
}

ValueKind RuntimeOpContext::inputKind(size_t /*i*/) const { return ValueKind::kTensor; }

ValueKind RuntimeOpContext::outputKind(size_t /*i*/) const { return ValueKind::kTensor; }

const TensorList& RuntimeOpContext::listInput(size_t i) const {
  throw Error(strCat(label(), ": input ", i, " is a tensor, not a sequence or optional"));
}

// By value in the interface: an implementation moves the list in.
void RuntimeOpContext::setListOutput(
    size_t i, TensorList /*value*/) {  // NOLINT(performance-unnecessary-value-param)
  throw Error(strCat(label(), ": output ", i, " is a tensor, not a sequence or optional"));
}

void registerRuntimeOps(const RuntimeOpTable& ops) {
  gTable.store(&ops, std::memory_order_release);
}

RuntimeOpFn findRuntimeOp(const std::string& name) {
  const RuntimeOpTable* t = table();
  if (t == nullptr) return nullptr;
  auto it = t->find(name);
  return it == t->end() ? nullptr : it->second;
}

std::vector<std::string> runtimeOpNames() {
  std::vector<std::string> names;
  if (const RuntimeOpTable* t = table()) {
    for (const auto& [name, fn] : *t) names.push_back(name);
  }
  return names;
}

const std::string& runtimeOpsUnavailable() {
  static const std::string kNone;
  return table() != nullptr ? kNone : loadCompanionLibrary(kRuntimeOpsLibrary);
}

}  // namespace kiln::runtime
