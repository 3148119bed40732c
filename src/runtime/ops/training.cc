// The optimizer steps of ONNX's training domain (ai.onnx.preview.training): Adagrad, Momentum
// (standard and Nesterov) and Adam, each over N tensors at once. Inputs: R (learning rate), T
// (update count), then N tensors X, N gradients G and N (Adam: 2N) accumulators; outputs: the N
// new tensors, then the new accumulators. Computed in double, stored in the tensors' type.
#include <cmath>

#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

// The N of an optimizer with STATES accumulators per tensor: inputs = 2 + (2 + STATES) * N.
size_t tensorCount(const RuntimeOpContext& ctx, size_t states) {
  size_t rest = ctx.numInputs() - 2;
  if (ctx.numInputs() < 2 || rest % (2 + states) != 0 || rest == 0) {
    fail(ctx, "has ", ctx.numInputs(), " inputs; expected R, T and ", 2 + states,
         " per optimized tensor");
  }
  size_t n = rest / (2 + states);
  if (ctx.numOutputs() != (1 + states) * n) {
    fail(ctx, "has ", ctx.numOutputs(), " outputs; expected ", (1 + states) * n);
  }
  return n;
}

void store(RuntimeOpContext& ctx, size_t output, const Shape& shape, const std::vector<double>& v) {
  NDArray y = ctx.output(output, shape);
  storeDoubles(ctx, y, v);
}

// Tensor I's inputs (X, G and the accumulators), checked to share one shape.
std::vector<std::vector<double>> operands(const RuntimeOpContext& ctx, size_t n, size_t i,
                                          size_t states) {
  std::vector<std::vector<double>> out;
  const Shape& shape = ctx.input(2 + i).shape();
  for (size_t k = 0; k < 2 + states; ++k) {
    const NDArray& a = ctx.input(2 + k * n + i);
    if (a.shape() != shape) {
      fail(ctx, "input ", 2 + k * n + i, " is ", shapeStr(a.shape()), "; expected ",
           shapeStr(shape), " like the tensor it updates");
    }
    out.push_back(toDoubles(ctx, a));
  }
  return out;
}

}  // namespace

void runAdagrad(RuntimeOpContext& ctx) {
  size_t n = tensorCount(ctx, 1);
  double r = inputScalarDouble(ctx, 0, "R"), t = inputScalarDouble(ctx, 1, "T");
  double decay = attrFloat(ctx, "decay_factor", 0.0), eps = attrFloat(ctx, "epsilon", 1e-6),
         norm = attrFloat(ctx, "norm_coefficient", 0.0);
  double rate = r / (1 + t * decay);
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::vector<double>> o = operands(ctx, n, i, 1);
    std::vector<double>&x = o[0], &g = o[1], &h = o[2];
    for (size_t k = 0; k < x.size(); ++k) {
      double gr = norm * x[k] + g[k];
      h[k] += gr * gr;
      x[k] -= rate * gr / (std::sqrt(h[k]) + eps);
    }
    const Shape& shape = ctx.input(2 + i).shape();
    store(ctx, i, shape, x);
    store(ctx, n + i, shape, h);
  }
}

void runMomentum(RuntimeOpContext& ctx) {
  size_t n = tensorCount(ctx, 1);
  double r = inputScalarDouble(ctx, 0, "R"), t = inputScalarDouble(ctx, 1, "T");
  double alpha = attrFloat(ctx, "alpha", 0.0), beta = attrFloat(ctx, "beta", 0.0),
         norm = attrFloat(ctx, "norm_coefficient", 0.0);
  std::string mode = attrString(ctx, "mode", "standard");
  if (mode != "standard" && mode != "nesterov") {
    fail(ctx, "mode '", mode, "' is not known; expected standard or nesterov");
  }
  double betaAdjusted = t > 0 ? beta : 1.0;
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::vector<double>> o = operands(ctx, n, i, 1);
    std::vector<double>&x = o[0], &g = o[1], &v = o[2];
    for (size_t k = 0; k < x.size(); ++k) {
      double gr = norm * x[k] + g[k];
      v[k] = alpha * v[k] + betaAdjusted * gr;
      x[k] -= r * (mode == "standard" ? v[k] : gr + alpha * v[k]);
    }
    const Shape& shape = ctx.input(2 + i).shape();
    store(ctx, i, shape, x);
    store(ctx, n + i, shape, v);
  }
}

void runAdam(RuntimeOpContext& ctx) {
  size_t n = tensorCount(ctx, 2);
  double r = inputScalarDouble(ctx, 0, "R"), t = inputScalarDouble(ctx, 1, "T");
  double alpha = attrFloat(ctx, "alpha", 0.9), beta = attrFloat(ctx, "beta", 0.999),
         eps = attrFloat(ctx, "epsilon", 1e-6), norm = attrFloat(ctx, "norm_coefficient", 0.0),
         post = attrFloat(ctx, "norm_coefficient_post", 0.0);
  double rate = t > 0 ? r * std::sqrt(1 - std::pow(beta, t)) / (1 - std::pow(alpha, t)) : r;
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::vector<double>> o = operands(ctx, n, i, 2);
    std::vector<double>&x = o[0], &g = o[1], &v = o[2], &h = o[3];
    for (size_t k = 0; k < x.size(); ++k) {
      double gr = norm * x[k] + g[k];
      v[k] = alpha * v[k] + (1 - alpha) * gr;
      h[k] = beta * h[k] + (1 - beta) * gr * gr;
      x[k] = (1 - post) * (x[k] - rate * v[k] / (std::sqrt(h[k]) + eps));
    }
    const Shape& shape = ctx.input(2 + i).shape();
    store(ctx, i, shape, x);
    store(ctx, n + i, shape, v);
    store(ctx, 2 * n + i, shape, h);
  }
}

}  // namespace kiln::runtime::ops
