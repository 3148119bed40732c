// The compile context: everything a compilation looks ops, lowerings and passes up in, owned by
// one invocation (a `kiln` command, an API caller) rather than by the process, so that contexts
// with different additions compile side by side in one process without seeing each other's.
#pragma once

#include <memory>
#include <string>

#include "kiln/driver/pipeline.h"
#include "kiln/extension/extensions.h"
#include "kiln/ir/op_registry.h"
#include "kiln/kernel/lowering_table.h"

namespace kiln::driver {

// Set up a context (load extensions, add ops, lowerings and passes), then compile with it, from any
// number of threads; adding to a context while it compiles is not allowed.
class CompileContext {
 public:
  // kiln's own ops, lowerings and passes.
  CompileContext();

  const std::shared_ptr<const ir::OpRegistry>& ops() const { return ops_; }
  const std::shared_ptr<const kernel::LoweringTable>& lowerings() const { return lowerings_; }
  const Pipeline& pipeline() const { return pipeline_; }

  // Each throws kiln::Error when the name is taken. The first addition to the ops or lowerings
  // copies the shared builtin table; graphs imported or parsed before an addition keep the
  // registry they were made with.
  void addOp(ir::OpDef def);
  void addLowering(const std::string& op, std::shared_ptr<const kernel::OpLowering> lowering);
  Pipeline& pipeline() { return pipeline_; }

  // The extensions this context loaded (ExtensionSet::load) and the backends they added.
  extension::ExtensionSet& extensions() { return extensions_; }
  const extension::ExtensionSet& extensions() const { return extensions_; }

 private:
  std::shared_ptr<const ir::OpRegistry> ops_;
  std::shared_ptr<const kernel::LoweringTable> lowerings_;
  Pipeline pipeline_;
  extension::ExtensionSet extensions_;
};

}  // namespace kiln::driver
