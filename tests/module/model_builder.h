// Small two-layer perceptrons (MatMul, Add, Relu, MatMul) with random weights, and their reference
// results, for the module-interface tests.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/ndarray.h"

namespace kiln::test {

struct Mlp {
  int64_t batch, in, hidden, out;
  std::vector<float> w1, b1, w2;  // row-major [in, hidden], [hidden], [hidden, out]
};

// Weights uniform in [-1, 1) from SEED.
Mlp randomMlp(int64_t batch, int64_t in, int64_t hidden, int64_t out, uint32_t seed);
// The graph of M; every value's name starts with PREFIX, so two models differ in every name.
std::unique_ptr<ir::Graph> buildMlp(const Mlp& m, const std::string& prefix);
// relu(x W1 + b1) W2, in double precision.
std::vector<float> referenceMlp(const Mlp& m, const std::vector<float>& x);
std::vector<float> randomVector(size_t n, uint32_t seed);
runtime::NDArray toArray(const std::vector<float>& v, const runtime::Shape& shape);
std::vector<float> toVector(const runtime::NDArray& a);
// Largest |got - want| over max(1, max |want|); infinite when a value is NaN in one and not the
// other, or the sizes differ.
double relativeError(const std::vector<float>& got, const std::vector<float>& want);

// The message of the kiln::Error F throws, or "" when it throws none.
std::string errorOf(const std::function<void()>& f);

// A folder for the running test's files, empty on entry.
std::string scratchDir();
// An executor of the model TEXT (the text IR), compiled into scratchDir()/NAME.so.
runtime::Module executorOfText(const std::string& text, const std::string& name);
runtime::NDArray int64Scalar(int64_t v);
runtime::NDArray boolScalar(bool v);
// Resident memory of this process (VmRSS), in bytes.
int64_t residentBytes();
// Its anonymous part (RssAnon: the heap, copies), in bytes.
int64_t anonymousBytes();

}  // namespace kiln::test
