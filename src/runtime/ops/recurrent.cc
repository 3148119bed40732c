// The recurrent layers RNN, GRU and LSTM, step by step as ONNX defines them: forward, reverse or
// bidirectional, with per-batch sequence lengths, initial states, LSTM peepholes, clipping and
// every activation ONNX names. Both layouts (time-major and batch-major).
#include "kiln/opdef/recurrent.h"

#include <cmath>
#include <functional>

#include "context_view.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

using Activation = std::function<double(double)>;

Activation activation(const RuntimeOpContext& ctx, const std::string& name, double alpha,
                      double beta) {
  if (name == "Sigmoid") return [](double x) { return 1 / (1 + std::exp(-x)); };
  if (name == "Tanh") return [](double x) { return std::tanh(x); };
  if (name == "Relu") return [](double x) { return x > 0 ? x : 0; };
  if (name == "Affine") return [=](double x) { return alpha * x + beta; };
  if (name == "LeakyRelu") return [=](double x) { return x >= 0 ? x : alpha * x; };
  if (name == "ThresholdedRelu") return [=](double x) { return x > alpha ? x : 0; };
  if (name == "ScaledTanh") return [=](double x) { return alpha * std::tanh(beta * x); };
  if (name == "HardSigmoid") {
    return [=](double x) { return std::max(0.0, std::min(1.0, alpha * x + beta)); };
  }
  if (name == "Elu") return [=](double x) { return x >= 0 ? x : alpha * (std::exp(x) - 1); };
  if (name == "Softsign") return [](double x) { return x / (1 + std::fabs(x)); };
  if (name == "Softplus") return [](double x) { return std::log1p(std::exp(x)); };
  fail(ctx, "activation '", name, "' is not one ONNX defines for recurrent layers");
}

// The default alpha/beta of the activations that take them, when the model gives none.
std::pair<double, double> defaultParams(const std::string& name) {
  if (name == "LeakyRelu") return {0.01, 0};
  if (name == "ThresholdedRelu") return {1, 0};
  if (name == "HardSigmoid") return {0.2, 0.5};
  if (name == "Elu") return {1, 0};
  return {1, 1};
}

bool takesAlpha(const std::string& n) {
  return n == "Affine" || n == "LeakyRelu" || n == "ThresholdedRelu" || n == "ScaledTanh" ||
         n == "HardSigmoid" || n == "Elu";
}
bool takesBeta(const std::string& n) {
  return n == "Affine" || n == "ScaledTanh" || n == "HardSigmoid";
}

std::vector<double> values(const RuntimeOpContext& ctx, size_t i) {
  if (ctx.numInputs() <= i || !ctx.hasInput(i)) return {};
  return toDoubles(ctx, ctx.input(i));
}

enum class Kind { kRnn, kGru, kLstm };

struct Layer {
  Kind kind;
  int64_t gates, hidden, inputSize, seq, batch, dirs;
  bool batchMajor, linearBeforeReset, inputForget;
  double clip;
  std::vector<Activation> acts;  // per direction: f, g[, h]
  std::vector<double> x, w, r, b, h0, c0, p;
  std::vector<int64_t> lens;
};

double clipped(const Layer& l, double v) {
  return l.clip > 0 ? std::max(-l.clip, std::min(l.clip, v)) : v;
}

// W·x + R·h (+ biases) for gate G of direction D, hidden unit J.
double gateInput(const Layer& l, int64_t d, int64_t g, int64_t j, const double* xt, const double* h,
                 bool withRecurrent = true) {
  int64_t row = g * l.hidden + j;
  const double* w = l.w.data() + (d * l.gates * l.hidden + row) * l.inputSize;
  double s = 0;
  for (int64_t k = 0; k < l.inputSize; ++k) s += w[k] * xt[k];
  if (!l.b.empty()) s += l.b[static_cast<size_t>(d * 2 * l.gates * l.hidden + row)];
  if (withRecurrent) {
    const double* r = l.r.data() + (d * l.gates * l.hidden + row) * l.hidden;
    for (int64_t k = 0; k < l.hidden; ++k) s += r[k] * h[k];
    if (!l.b.empty()) s += l.b[static_cast<size_t>((d * 2 + 1) * l.gates * l.hidden + row)];
  }
  return s;
}

double recurrentOnly(const Layer& l, int64_t d, int64_t g, int64_t j, const double* h) {
  int64_t row = g * l.hidden + j;
  const double* r = l.r.data() + (d * l.gates * l.hidden + row) * l.hidden;
  double s = 0;
  for (int64_t k = 0; k < l.hidden; ++k) s += r[k] * h[k];
  if (!l.b.empty()) s += l.b[static_cast<size_t>((d * 2 + 1) * l.gates * l.hidden + row)];
  return s;
}

// One step of direction D for one batch row: H (and C) updated in place.
void step(const Layer& l, int64_t d, const double* xt, std::vector<double>& h,
          std::vector<double>& c) {
  const Activation* a = &l.acts[static_cast<size_t>(d) * (l.kind == Kind::kLstm  ? 3
                                                          : l.kind == Kind::kGru ? 2
                                                                                 : 1)];
  std::vector<double> next(static_cast<size_t>(l.hidden));
  if (l.kind == Kind::kRnn) {
    for (int64_t j = 0; j < l.hidden; ++j)
      next[j] = a[0](clipped(l, gateInput(l, d, 0, j, xt, h.data())));
  } else if (l.kind == Kind::kGru) {  // gates z, r, h
    std::vector<double> z(next.size()), r(next.size()), rh(next.size());
    for (int64_t j = 0; j < l.hidden; ++j) {
      z[j] = a[0](clipped(l, gateInput(l, d, 0, j, xt, h.data())));
      r[j] = a[0](clipped(l, gateInput(l, d, 1, j, xt, h.data())));
      rh[j] = r[j] * h[j];
    }
    for (int64_t j = 0; j < l.hidden; ++j) {
      double pre = l.linearBeforeReset ? gateInput(l, d, 2, j, xt, h.data(), false) +
                                             r[j] * recurrentOnly(l, d, 2, j, h.data())
                                       : gateInput(l, d, 2, j, xt, rh.data());
      double ht = a[1](clipped(l, pre));
      next[j] = (1 - z[j]) * ht + z[j] * h[j];
    }
  } else {  // gates i, o, f, c; peepholes i, o, f
    std::vector<double> cn(next.size());
    auto peep = [&](int64_t k, int64_t j) {
      return l.p.empty() ? 0.0 : l.p[static_cast<size_t>((d * 3 + k) * l.hidden + j)];
    };
    for (int64_t j = 0; j < l.hidden; ++j) {
      double i = a[0](clipped(l, gateInput(l, d, 0, j, xt, h.data()) + peep(0, j) * c[j]));
      double f = l.inputForget
                     ? 1 - i
                     : a[0](clipped(l, gateInput(l, d, 2, j, xt, h.data()) + peep(2, j) * c[j]));
      double g = a[1](clipped(l, gateInput(l, d, 3, j, xt, h.data())));
      cn[j] = f * c[j] + i * g;
      double o = a[0](clipped(l, gateInput(l, d, 1, j, xt, h.data()) + peep(1, j) * cn[j]));
      next[j] = o * a[2](cn[j]);
    }
    c = cn;
  }
  h = next;
}

Layer layerOf(RuntimeOpContext& ctx, Kind kind) {
  Layer l;
  l.kind = kind;
  opdef::RecurrentGeometry g = opdef::recurrentGeometry(ContextView(ctx));  // as at compile time
  l.gates = g.gates;
  l.batchMajor = g.batchMajor;
  l.seq = g.seq;
  l.batch = g.batch;
  l.inputSize = g.inputSize;
  l.dirs = g.dirs;
  l.hidden = g.hidden;
  l.linearBeforeReset = attrInt(ctx, "linear_before_reset", 0) != 0;
  l.inputForget = attrInt(ctx, "input_forget", 0) != 0;
  l.clip = attrFloat(ctx, "clip", 0.0);
  l.x = values(ctx, 0);
  l.w = values(ctx, 1);
  l.r = values(ctx, 2);
  l.b = values(ctx, 3);
  std::vector<double> lens = values(ctx, 4);
  for (int64_t b = 0; b < l.batch; ++b) {
    l.lens.push_back(lens.empty() ? l.seq : static_cast<int64_t>(lens[static_cast<size_t>(b)]));
  }
  l.h0 = values(ctx, 5);
  if (kind == Kind::kLstm) {
    l.c0 = values(ctx, 6);
    l.p = values(ctx, 7);
  }
  std::vector<std::string> names;
  if (hasAttr(ctx, "activations")) {
    for (const Json& n : ctx.attrs().at("activations").asArray()) names.push_back(n.asString());
  }
  size_t per = kind == Kind::kLstm ? 3 : kind == Kind::kGru ? 2 : 1;
  std::vector<std::string> defaults = kind == Kind::kRnn ? std::vector<std::string>{"Tanh"}
                                      : kind == Kind::kGru
                                          ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                          : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  if (names.empty()) {
    for (int64_t d = 0; d < l.dirs; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  }
  if (names.size() == per && l.dirs == 2) names.insert(names.end(), names.begin(), names.end());
  if (names.size() != per * static_cast<size_t>(l.dirs)) {
    fail(ctx, "activations has ", names.size(), " names; expected ", per * l.dirs);
  }
  std::vector<double> alphas, betas;
  if (hasAttr(ctx, "activation_alpha")) {
    for (const Json& v : ctx.attrs().at("activation_alpha").asArray())
      alphas.push_back(v.asDouble());
  }
  if (hasAttr(ctx, "activation_beta")) {
    for (const Json& v : ctx.attrs().at("activation_beta").asArray()) betas.push_back(v.asDouble());
  }
  size_t ai = 0, bi = 0;
  for (const std::string& n : names) {
    auto [alpha, beta] = defaultParams(n);
    if (takesAlpha(n) && ai < alphas.size()) alpha = alphas[ai++];
    if (takesBeta(n) && bi < betas.size()) beta = betas[bi++];
    l.acts.push_back(activation(ctx, n, alpha, beta));
  }
  return l;
}

void runRecurrent(RuntimeOpContext& ctx, Kind kind) {
  Layer l = layerOf(ctx, kind);
  int64_t H = l.hidden, B = l.batch, S = l.seq, D = l.dirs;
  std::vector<double> y(static_cast<size_t>(S * D * B * H), 0.0);
  std::vector<double> yh(static_cast<size_t>(D * B * H)), yc(yh.size());
  for (int64_t d = 0; d < D; ++d) {
    bool reverse = attrString(ctx, "direction", "forward") == "reverse" || d == 1;
    for (int64_t b = 0; b < B; ++b) {
      std::vector<double> h(static_cast<size_t>(H), 0.0), c(static_cast<size_t>(H), 0.0);
      for (int64_t j = 0; j < H; ++j) {
        if (!l.h0.empty()) h[j] = l.h0[static_cast<size_t>((d * B + b) * H + j)];
        if (!l.c0.empty()) c[j] = l.c0[static_cast<size_t>((d * B + b) * H + j)];
      }
      int64_t len = std::min(l.lens[static_cast<size_t>(b)], S);
      for (int64_t s = 0; s < len; ++s) {
        int64_t t = reverse ? len - 1 - s : s;
        int64_t xAt = l.batchMajor ? (b * S + t) : (t * B + b);
        step(l, d, l.x.data() + xAt * l.inputSize, h, c);
        for (int64_t j = 0; j < H; ++j)
          y[static_cast<size_t>(((t * D + d) * B + b) * H + j)] = h[j];
      }
      for (int64_t j = 0; j < H; ++j) {
        yh[static_cast<size_t>((d * B + b) * H + j)] = h[j];
        yc[static_cast<size_t>((d * B + b) * H + j)] = c[j];
      }
    }
  }
  // Outputs in the model's layout: Y [S, D, B, H] or [B, S, D, H]; Y_h, Y_c [D, B, H] or [B, D, H].
  auto write = [&](size_t out, const Shape& shape, auto at) {
    if (ctx.numOutputs() <= out) return;
    NDArray a = ctx.output(out, shape);
    visitNumeric(ctx, a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* p = static_cast<T*>(a.data());
      for (int64_t e = 0; e < a.numel(); ++e) p[e] = static_cast<T>(at(e));
    });
  };
  if (l.batchMajor) {
    write(0, {B, S, D, H}, [&](int64_t e) {
      int64_t j = e % H, d = e / H % D, t = e / (H * D) % S, b = e / (H * D * S);
      return y[static_cast<size_t>(((t * D + d) * B + b) * H + j)];
    });
    auto state = [&](const std::vector<double>& v) {
      return [&v, B, D, H](int64_t e) {
        int64_t j = e % H, d = e / H % D, b = e / (H * D);
        return v[static_cast<size_t>((d * B + b) * H + j)];
      };
    };
    write(1, {B, D, H}, state(yh));
    write(2, {B, D, H}, state(yc));
  } else {
    write(0, {S, D, B, H}, [&](int64_t e) { return y[static_cast<size_t>(e)]; });
    write(1, {D, B, H}, [&](int64_t e) { return yh[static_cast<size_t>(e)]; });
    write(2, {D, B, H}, [&](int64_t e) { return yc[static_cast<size_t>(e)]; });
  }
}

}  // namespace

void runRnn(RuntimeOpContext& ctx) { runRecurrent(ctx, Kind::kRnn); }
void runGru(RuntimeOpContext& ctx) { runRecurrent(ctx, Kind::kGru); }
void runLstm(RuntimeOpContext& ctx) { runRecurrent(ctx, Kind::kLstm); }

}  // namespace kiln::runtime::ops
