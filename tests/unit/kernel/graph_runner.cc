// Runs a graph's fused groups through lowerGroup and the loop IR interpreter.
#include "graph_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kiln/ir/fused_group.h"
#include "kiln/kernel/lower.h"
#include "kiln/support/error.h"
#include "local_buffer_usage.h"

namespace kiln::kernel::testing {

using namespace tir;  // NOLINT(google-build-using-namespace)

Storage toStorage(const runtime::NDArray& a) {
  Storage s(static_cast<size_t>(a.numel()));
  DataType t = a.dtype();
  for (size_t i = 0; i < s.size(); ++i) {
    if (t == DataType::float32()) {
      s[i] = a.data<float>()[i];
    } else if (t == DataType::float64()) {
      s[i] = a.data<double>()[i];
    } else if (t == DataType::int64()) {
      s[i] = static_cast<double>(a.data<int64_t>()[i]);
    } else if (t == DataType::int32()) {
      s[i] = a.data<int32_t>()[i];
    } else if (t == DataType::int8()) {
      s[i] = a.data<int8_t>()[i];
    } else if (t == DataType::uint8() || t == DataType::boolean()) {
      s[i] = a.data<uint8_t>()[i];
    } else {
      throw std::runtime_error("unsupported dtype " + t.str());
    }
  }
  return s;
}

void expectNear(const Storage& got, const Storage& want) {
  ASSERT_EQ(got.size(), want.size());
  double scale = 1e-6;
  for (double w : want) scale = std::max(scale, std::fabs(w));
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-5 * scale) << "at element " << i;
  }
}

std::vector<Storage> runGraph(const ir::Graph& graph, const std::map<std::string, Storage>& inputs,
                              const ScheduleConfig& config,
                              const std::map<std::string, int64_t>& knobs) {
  std::map<const ir::Value*, Storage> values;
  for (const ir::Value* v : graph.inputs()) values[v] = inputs.at(v->name);
  for (const ir::Value* v : graph.constants()) values[v] = toStorage(*v->constant);
  int k = 0;
  for (const ir::FusedGroup& g : ir::collectGroups(graph)) {
    std::string symbol = strCat("k", k++, "_", g.name);
    ScheduleConfig c = config;
    for (const auto& [name, value] : knobs) c.knobs["*"][name] = value;
    LoweredKernel kernel = lowerGroup(g, symbol, c);
    // Every kernel a numeric test runs must also keep its local buffers on the stack.
    std::string violation = localBufferViolation(kernel.func);
    if (!violation.empty()) throw std::runtime_error(violation);
    std::vector<Storage*> args;
    for (const ir::Value* v : kernel.args) {
      auto it = values.find(v);
      if (it == values.end())
        it = values.emplace(v, Storage(static_cast<size_t>(v->type.numel()), 0)).first;
      args.push_back(&it->second);
    }
    if (int32_t status = interpret(kernel.func, args)) {
      throw std::runtime_error(strCat("kernel ", symbol, " returned status ", status));
    }
  }
  std::vector<Storage> outs;
  for (const ir::Value* v : graph.outputs()) outs.push_back(values.at(v));
  return outs;
}

}  // namespace kiln::kernel::testing
