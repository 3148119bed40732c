// The lowering table: which ops lowerGroup has kernels for, and how each becomes loop IR. The
// builtin table is shared and never changes; a compile context that lowers more ops extends a copy.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"
#include "kiln/tir/expr.h"

namespace kiln::kernel {

struct OpLowering;  // defined with the lowering families (src/kernel/compute)

class LoweringTable {
 public:
  static const std::shared_ptr<const LoweringTable>& builtin();

  // A table holding this one's lowerings, to add more to (the lowerings are shared, not copied).
  std::shared_ptr<LoweringTable> extended() const { return std::make_shared<LoweringTable>(*this); }
  // Throws kiln::Error when OP already has a lowering.
  void add(const std::string& op, std::shared_ptr<const OpLowering> lowering);
  const OpLowering* find(const std::string& op) const;  // nullptr when OP has none
  std::vector<std::string> ops() const;                 // sorted

 private:
  std::map<std::string, std::shared_ptr<const OpLowering>> table_;
};

// The lowering of an elementwise op of one output, given as its element: F(node, the input
// elements at an output index, broadcast numpy-style; null for an omitted input) -> the output
// element. Such ops fuse like kiln's own elementwise ops.
using ElementFn = std::function<tir::Expr(const ir::Node&, const std::vector<tir::Expr>&)>;
std::shared_ptr<const OpLowering> elementwiseLowering(const ElementFn& f);

}  // namespace kiln::kernel
