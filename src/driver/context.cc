// The compile context starts from kiln's shared builtin tables and copies one on its first
// addition, so the builtin tables stay what every other context sees.
#include "kiln/driver/context.h"

namespace kiln::driver {

CompileContext::CompileContext()
    : ops_(ir::OpRegistry::builtin()),
      lowerings_(kernel::LoweringTable::builtin()),
      pipeline_(Pipeline::builtin()) {}

void CompileContext::addOp(ir::OpDef def) {
  std::shared_ptr<ir::OpRegistry> ops = ops_->extended();
  ops->add(std::move(def));
  ops_ = std::move(ops);
}

void CompileContext::addLowering(const std::string& op,
                                 std::shared_ptr<const kernel::OpLowering> lowering) {
  std::shared_ptr<kernel::LoweringTable> table = lowerings_->extended();
  table->add(op, std::move(lowering));
  lowerings_ = std::move(table);
}

}  // namespace kiln::driver
