// Builds the graphs the module-interface tests compile, and what they should compute.
#include "model_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "kiln/driver/compile.h"
#include "kiln/ir/op_registry.h"
#include "kiln/ir/parser.h"
#include "kiln/support/error.h"

namespace kiln::test {

std::vector<float> randomVector(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

Mlp randomMlp(int64_t batch, int64_t in, int64_t hidden, int64_t out, uint32_t seed) {
  Mlp m{batch, in, hidden, out, {}, {}, {}};
  m.w1 = randomVector(static_cast<size_t>(in * hidden), seed);
  m.b1 = randomVector(static_cast<size_t>(hidden), seed + 1);
  m.w2 = randomVector(static_cast<size_t>(hidden * out), seed + 2);
  return m;
}

runtime::NDArray toArray(const std::vector<float>& v, const runtime::Shape& shape) {
  return runtime::NDArray::fromBytes(shape, runtime::DataType::float32(), v.data(),
                                     v.size() * sizeof(float));
}

std::vector<float> toVector(const runtime::NDArray& a) {
  return std::vector<float>(a.data<float>(), a.data<float>() + a.numel());
}

std::unique_ptr<ir::Graph> buildMlp(const Mlp& m, const std::string& prefix) {
  auto g = std::make_unique<ir::Graph>();
  auto node = [&](const std::string& op, std::vector<ir::Value*> inputs, const std::string& name) {
    ir::Node* n = g->addNode(op, prefix + name, std::move(inputs), {prefix + name + "_out"}, {});
    ir::inferTypes(*n);
    return n->outputs[0];
  };
  ir::Value* x = g->addInput(prefix + "x", {runtime::DataType::float32(), {m.batch, m.in}});
  ir::Value* w1 = g->addConstant(prefix + "w1", toArray(m.w1, {m.in, m.hidden}));
  ir::Value* b1 = g->addConstant(prefix + "b1", toArray(m.b1, {m.hidden}));
  ir::Value* w2 = g->addConstant(prefix + "w2", toArray(m.w2, {m.hidden, m.out}));
  ir::Value* h = node("Relu", {node("Add", {node("MatMul", {x, w1}, "mm1"), b1}, "add")}, "relu");
  g->outputs().push_back(node("MatMul", {h, w2}, "mm2"));
  return g;
}

std::vector<float> referenceMlp(const Mlp& m, const std::vector<float>& x) {
  std::vector<float> y(static_cast<size_t>(m.batch * m.out));
  std::vector<double> h(static_cast<size_t>(m.hidden));
  for (int64_t b = 0; b < m.batch; ++b) {
    for (int64_t j = 0; j < m.hidden; ++j) {
      double s = m.b1[j];
      for (int64_t k = 0; k < m.in; ++k) s += double(x[b * m.in + k]) * m.w1[k * m.hidden + j];
      h[j] = std::max(s, 0.0);
    }
    for (int64_t o = 0; o < m.out; ++o) {
      double s = 0;
      for (int64_t j = 0; j < m.hidden; ++j) s += h[j] * m.w2[j * m.out + o];
      y[b * m.out + o] = static_cast<float>(s);
    }
  }
  return y;
}

double relativeError(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return INFINITY;
  double scale = 1, err = 0;
  for (float w : want) scale = std::max(scale, double(std::fabs(w)));
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) && std::isnan(want[i])) continue;
    double d = std::fabs(double(got[i]) - want[i]);
    if (std::isnan(d)) return INFINITY;  // std::max would keep the error found so far
    err = std::max(err, d);
  }
  return err / scale;
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string scratchDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string dir = std::string(KILN_BINARY_DIR) + "/module_tests_scratch/" +
                    info->test_suite_name() + "." + info->name();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

runtime::Module executorOfText(const std::string& text, const std::string& name) {
  std::unique_ptr<ir::Graph> g = ir::parseGraph(text);
  std::string path = scratchDir() + "/" + name + ".so";
  driver::compileGraph(*g, path, {});
  return runtime::loadModule(path)["default"](runtime::Device::cpu()).asModule();
}

runtime::NDArray int64Scalar(int64_t v) {
  return runtime::NDArray::fromBytes({}, runtime::DataType::int64(), &v, sizeof v);
}

runtime::NDArray boolScalar(bool v) {
  return runtime::NDArray::fromBytes({}, runtime::DataType::boolean(), &v, sizeof v);
}

namespace {

int64_t statusField(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::stoll(line.substr(field.size())) * 1024;
  }
  return -1;
}

}  // namespace

int64_t residentBytes() { return statusField("VmRSS:"); }
int64_t anonymousBytes() { return statusField("RssAnon:"); }

}  // namespace kiln::test
