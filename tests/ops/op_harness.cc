// The operator-test harness: graph building, end-to-end compilation and comparison.
#include "op_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "kiln/driver/compile.h"
#include "kiln/ir/op_registry.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"

namespace kiln::optest {

ir::Attrs attrs(std::initializer_list<std::pair<std::string, ir::AttrValue>> list) {
  ir::Attrs a;
  for (const auto& [name, value] : list) a.set(name, value);
  return a;
}

HostTensor ints(const Shape& shape, std::vector<double> values, DataType dtype) {
  return HostTensor{shape, dtype, std::move(values)};
}

HostTensor int64s(const Dims& values) {
  return ints({static_cast<int64_t>(values.size())},
              std::vector<double>(values.begin(), values.end()));
}

HostTensor randomTensor(const Shape& shape, uint32_t seed, double lo, double hi, DataType dtype) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  HostTensor t = zeros(shape, dtype);
  for (double& v : t.data) {
    v = dist(rng);
    if (!dtype.isFloat()) v = std::floor(v);
  }
  return rounded(t);
}

OpGraph::OpGraph() : graph_(std::make_unique<ir::Graph>()) {}

ir::Value* OpGraph::input(const HostTensor& value) {
  std::string name = "in" + std::to_string(counter_++);
  inputs_.emplace_back(name, value);
  return graph_->addInput(name, {value.dtype, value.shape});
}

ir::Value* OpGraph::constant(const HostTensor& value) {
  return graph_->addConstant("const" + std::to_string(counter_++), toNDArray(value));
}

std::vector<ir::Value*> OpGraph::nodeOutputs(const std::string& op,
                                             const std::vector<ir::Value*>& inputs, ir::Attrs attrs,
                                             int numOutputs) {
  std::string name = op + std::to_string(counter_++);
  std::vector<std::string> outNames;
  outNames.reserve(static_cast<size_t>(numOutputs));
  for (int i = 0; i < numOutputs; ++i) outNames.push_back(name + "_out" + std::to_string(i));
  ir::Node* n = graph_->addNode(op, name, inputs, outNames, std::move(attrs));
  ir::inferTypes(*n);
  return n->outputs;
}

ir::Value* OpGraph::node(const std::string& op, const std::vector<ir::Value*>& inputs,
                         ir::Attrs attrs) {
  return nodeOutputs(op, inputs, std::move(attrs))[0];
}

void OpGraph::expect(ir::Value* v, const HostTensor& want, const std::string& label, double rtol) {
  graph_->outputs().push_back(v);
  expected_.push_back({want, label, rtol});
}

namespace {

std::string artifactPath(int optLevel, const std::string& tag) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string dir = std::string(KILN_BINARY_DIR) + "/op_tests_artifacts";
  std::filesystem::create_directories(dir);
  return dir + "/" + info->test_suite_name() + "_" + info->name() + "_O" +
         std::to_string(optLevel) + tag + ".so";
}

void compare(const HostTensor& got, const HostTensor& want, const std::string& label, double rtol) {
  ASSERT_EQ(got.shape, want.shape) << label;
  ASSERT_EQ(got.dtype, want.dtype) << label;
  double scale = 0;
  for (double w : want.data) scale = std::max(scale, std::fabs(w));
  double tol = want.dtype.isFloat() ? rtol * std::max(scale, 1e-30) : 0.0;
  int64_t bad = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    double g = got.at(i), w = want.at(i);
    bool same = (std::isnan(g) && std::isnan(w)) || g == w || std::fabs(g - w) <= tol;
    if (!same && bad++ < 5) {
      ADD_FAILURE() << label << ": element " << i << " is " << g << ", expected " << w
                    << " (tolerance " << tol << ")";
    }
  }
  EXPECT_EQ(bad, 0) << label << ": " << bad << " of " << want.numel() << " elements differ";
}

// The heap allocators LIBRARY imports: the names in its dynamic string table (each stored as
// "\0name\0"). Kernels keep every local buffer on the stack, so there must be none.
std::vector<std::string> importedAllocators(const std::string& library) {
  std::ifstream in(library, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> found;
  for (const char* name : {"aligned_alloc", "malloc", "calloc", "realloc", "posix_memalign"}) {
    if (bytes.find(std::string(1, '\0') + name + '\0') != std::string::npos) found.push_back(name);
  }
  return found;
}

}  // namespace

void OpGraph::check(int optLevel, const std::string& target) {
  std::string path = artifactPath(optLevel, target.empty() ? "" : "_target");
  driver::CompileOptions options;
  options.optLevel = optLevel;
  options.target = target;
  driver::compileGraph(*graph_, path, options);
  std::vector<std::string> allocators = importedAllocators(path);
  EXPECT_TRUE(allocators.empty()) << path << " calls " << allocators.front()
                                  << ": a kernel allocates heap memory at run time";
  runtime::Module lib = runtime::loadModule(path);
  runtime::Module ex = lib["default"](runtime::Device::cpu()).asModule();
  for (const auto& [name, value] : inputs_) ex["set_input"](name, toNDArray(value));
  ex["run"]();
  for (size_t i = 0; i < expected_.size(); ++i) {
    HostTensor got = fromNDArray(ex["get_output"](static_cast<int64_t>(i)).asNDArray());
    compare(got, expected_[i].want,
            strCat(expected_[i].label, " at -O", optLevel, target.empty() ? "" : " for ", target),
            expected_[i].rtol);
  }
}

std::string OpGraph::compileFor(const std::string& target) {
  std::string path = artifactPath(3, "_cross");
  driver::CompileOptions options;
  options.target = target;
  driver::compileGraph(*graph_, path, options);
  return path;
}

void checkAtAllLevels(const std::function<void(OpGraph&)>& build) {
  for (int level : {3, 0}) {
    OpGraph g;
    build(g);
    SCOPED_TRACE(strCat("opt level ", level));
    g.check(level);
  }
#if defined(__x86_64__)
  // The AVX2 schedules (8 lanes: other blocks, other tiles) run on any AVX2 host.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    OpGraph g;
    build(g);
    SCOPED_TRACE("AVX2 target");
    g.check(3, kAvx2Target);
  }
#endif
}

}  // namespace kiln::optest
