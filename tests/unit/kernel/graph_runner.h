// Runs a graph's fused groups through lowerGroup and the loop IR interpreter, for numeric tests of
// lowering that do not depend on code generation.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"
#include "kiln/kernel/schedule.h"
#include "tir_interpreter.h"

namespace kiln::kernel::testing {

using tir::testing::interpret;
using tir::testing::Storage;

Storage toStorage(const runtime::NDArray& a);
// Fails the running test unless GOT has WANT's size and every element is within 1e-5 of WANT's
// largest magnitude (at least 1e-6) of its counterpart.
void expectNear(const Storage& got, const Storage& want);

// The graph outputs for INPUTS (by input name), grouping nodes by their `group` annotations.
// KNOBS ("oc_tile" -> 2) apply to every kernel, on top of CONFIG. Throws std::runtime_error when
// a kernel's local buffers exceed the stack budget (kMaxLocalBufferBytes) or a kernel returns a
// non-zero status ("kernel SYMBOL returned status N").
std::vector<Storage> runGraph(const ir::Graph& graph, const std::map<std::string, Storage>& inputs,
                              const ScheduleConfig& config = {},
                              const std::map<std::string, int64_t>& knobs = {});

}  // namespace kiln::kernel::testing
