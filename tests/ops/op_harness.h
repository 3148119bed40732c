// The harness of the operator tests: builds a graph of test cases, compiles it end to end with the
// driver, runs it through the runtime and compares every output with a reference result.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"
#include "kiln/ir/reference.h"
#include "kiln/runtime/ndarray.h"
#include "kiln/support/error.h"

namespace kiln::optest {

using runtime::DataType;
using runtime::Shape;

using namespace ir::reference;  // HostTensor, zeros, rounded, toNDArray, fromNDArray, ref*

// Uniform in [lo, hi) from a fixed SEED; integer dtypes take floor of the value.
HostTensor randomTensor(const Shape& shape, uint32_t seed, double lo = -1.0, double hi = 1.0,
                        DataType dtype = DataType::float32());

// Attributes from a list: attrs({{"axis", int64_t{1}}, {"pads", Dims{1, 1, 1, 1}}}).
ir::Attrs attrs(std::initializer_list<std::pair<std::string, ir::AttrValue>> list);
HostTensor ints(const Shape& shape, std::vector<double> values, DataType dtype = DataType::int64());
// A 1-D int64 tensor of VALUES (shapes, axes, pads, repeats as an op's input).
HostTensor int64s(const Dims& values);

// One graph holding many independent test cases, each with its own inputs and expected outputs.
class OpGraph {
 public:
  OpGraph();
  ir::Graph& graph() { return *graph_; }

  ir::Value* input(const HostTensor& value);
  ir::Value* constant(const HostTensor& value);
  // Adds NODE (op, inputs, attrs) and runs its type inference; returns its outputs.
  std::vector<ir::Value*> nodeOutputs(const std::string& op, const std::vector<ir::Value*>& inputs,
                                      ir::Attrs attrs = {}, int numOutputs = 1);
  ir::Value* node(const std::string& op, const std::vector<ir::Value*>& inputs,
                  ir::Attrs attrs = {});
  // Marks V a graph output that must match WANT within RTOL of max |WANT| (exact for integers).
  void expect(ir::Value* v, const HostTensor& want, const std::string& label, double rtol = 1e-4);

  // Compiles at OPT_LEVEL for TARGET ("" = the host), runs and compares; failures are reported
  // with the case labels.
  void check(int optLevel, const std::string& target = "");
  // Compiles at -O3 for TARGET without running; returns the artifact's path.
  std::string compileFor(const std::string& target);

 private:
  struct Expected {
    HostTensor want;
    std::string label;
    double rtol;
  };
  std::unique_ptr<ir::Graph> graph_;
  std::vector<std::pair<std::string, HostTensor>> inputs_;
  std::vector<Expected> expected_;
  int counter_ = 0;
};

// An x86 target with AVX2 and FMA but no AVX-512: 8-lane blocks and tiles.
inline constexpr const char* kAvx2Target = "llvm -mcpu=haswell";

// Builds the cases with BUILD and checks them at opt levels 3 and 0 for the host, and at 3 for
// AVX2 when the host can run it (each from a fresh graph).
void checkAtAllLevels(const std::function<void(OpGraph&)>& build);

}  // namespace kiln::optest
