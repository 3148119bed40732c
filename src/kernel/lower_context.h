// The state shared by all op lowerings of one fused group: parameters, element accessors of the
// group's values, fresh names and schedule knobs.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "index_math.h"
#include "kiln/ir/fused_group.h"
#include "kiln/ir/graph.h"
#include "kiln/kernel/lower.h"
#include "kiln/kernel/schedule.h"

namespace kiln::kernel {

// A multi-dimensional element index, one int64 expression per dimension of a value's shape.
using Index = std::vector<Expr>;
// The element of a value at an index, as an expression (TE-style compute definition).
using Accessor = std::function<Expr(const Index&)>;
// Emits the final store(s) of the group for the anchor's output element at IDX holding VALUE; the
// group's epilogue (bias, activation, residual add) is applied on the way.
using StoreFn = std::function<Stmt(const Index& idx, Expr value)>;

class LowerContext {
 public:
  LowerContext(const ir::FusedGroup& group, std::string symbol, const ScheduleConfig& config);

  const ir::FusedGroup& group() const { return group_; }
  const std::string& symbol() const { return symbol_; }
  const ScheduleConfig& config() const { return config_; }

  // Declares knob NAME of this kernel's workload, accepting LO..HI: its override from the
  // config if there is one (kiln::Error when outside LO..HI), else DFLT clamped to LO..HI. The
  // choice is recorded in the kernel's schedule; asking again returns the same value.
  int64_t knob(const std::string& name, int64_t dflt, int64_t lo = 1,
               int64_t hi = std::numeric_limits<int64_t>::max());
  const std::string& workload() const { return workload_; }
  // The loop kind for an outer loop: kParallel when the config allows it.
  ForKind parallelKind() const;
  ForKind vectorKind() const;

  // Names unique in this kernel, for the variables a micro-kernel declares.
  std::function<std::string(const std::string&)> names() {
    return [this](const std::string& hint) { return uniqueName(hint); };
  }
  // A new int64 variable with a name unique in this kernel.
  Expr freshVar(const std::string& hint, DataType t = DataType::int64());
  // A new local buffer (for Allocate) with a unique name.
  Buffer localBuffer(const std::string& hint, DataType t, std::vector<int64_t> shape);

  // Whether V is computed inside the group.
  bool inGroup(const ir::Value* v) const;
  // A scalar constant that is folded into the code; null when V is not one.
  Expr immediate(const ir::Value* v) const;
  // Reads element FLAT of V (from outside the group): an immediate or a load of its parameter.
  Expr readFlat(const ir::Value* v, Expr flat);
  // The parameter buffer of V (an input from outside or a group output), created on first use.
  Buffer param(const ir::Value* v);

  // The shape V has in this lowering (elementwise groups may collapse dimensions).
  const std::vector<int64_t>& shapeOf(const ir::Value* v) const;
  void overrideShape(const ir::Value* v, std::vector<int64_t> shape);

  // Whether the group's tensors are sized in the graph's symbols, whose values the kernel reads
  // when it runs; shapes then come from extentsOf, not shapeOf.
  bool symbolic() const { return symbolic_; }
  // V's dims as int64 expressions: immediates, or sizes in the symbols' values.
  Index extentsOf(const ir::Value* v);
  void overrideExtents(const ir::Value* v, Index extents);
  // The most elements V holds over the graph's bounds (its placed size), and its shape then.
  int64_t capacityNumel(const ir::Value* v) const;
  Dims placedShape(const ir::Value* v) const;
  // SIZE as an int64 expression of the symbols' values.
  Expr sizeExpr(const opdef::Dim& size);

  // The element accessor of V: its compute definition when V is made in the group, else a read.
  Accessor accessor(const ir::Value* v);
  void define(const ir::Value* v, Accessor a);

  // A rule of the input data that the element being computed relies on (an index within its
  // axis); STATUS is the KILN_STATUS_* code the kernel returns when COND is false.
  void requireData(Expr cond, int32_t status);
  // STORE preceded by the checks required since the last call, so no element is written from
  // data that breaks them.
  Stmt checked(Stmt store);

  // The kernel: used inputs in group.inputs order, then the group outputs.
  LoweredKernel finish(Stmt body);

 private:
  std::string uniqueName(const std::string& hint);
  // BODY after binding every symbol read to its value in PARAM.
  Stmt bindSymbols(const Buffer& param, Stmt body) const;

  const ir::FusedGroup& group_;
  std::string symbol_;
  const ScheduleConfig& config_;
  std::set<std::string> names_;
  std::set<const ir::Value*> made_;
  std::map<const ir::Value*, Buffer> params_;
  std::map<const ir::Value*, Accessor> defined_;
  std::map<const ir::Value*, std::vector<int64_t>> shapes_;
  std::map<const ir::Value*, Index> extents_;
  bool symbolic_ = false;
  const opdef::DimBounds* bounds_ = nullptr;
  std::map<std::string, Expr> symbolVars_;  // the symbols read so far
  std::string workload_;
  std::vector<KnobChoice> knobs_;
  std::vector<Stmt> checks_;
};

// Throws kiln::Error "cannot lower NODE (OP): WHY".
[[noreturn]] void unsupported(const ir::Node& node, const std::string& why);

}  // namespace kiln::kernel
