// Elementwise ops on tensors sized at run time: unary math, Cast, binary arithmetic and
// comparisons with numpy broadcasting, and Where.
#include <array>
#include <cmath>

#include "context_view.h"
#include "kiln/opdef/broadcast.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

// Element offsets of INPUT (broadcast to OUT) along each dim of OUT: 0 where it repeats.
std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out) {
  std::vector<int64_t> own = rowMajorStrides(in);
  std::vector<int64_t> s(out.size(), 0);
  size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) s[lead + d] = in[d] == 1 ? 0 : own[d];
  return s;
}

// Calls F(out element, in element offsets...) over OUT's elements, in order.
template <size_t N, typename F>
void forEachBroadcast(const Shape& out, const std::array<std::vector<int64_t>, N>& strides, F f) {
  std::vector<int64_t> idx(out.size(), 0);
  std::array<int64_t, N> off{};
  int64_t n = shapeNumel(out);
  for (int64_t e = 0; e < n; ++e) {
    f(e, off);
    for (size_t d = out.size(); d-- > 0;) {
      for (size_t k = 0; k < N; ++k) off[k] += strides[k][d];
      if (++idx[d] < out[d]) break;
      for (size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * out[d];
      idx[d] = 0;
    }
  }
}

// The function of unary OP for elements of type T, chosen once per call, not per element.
template <typename T>
T (*unaryFn(const RuntimeOpContext& ctx, const std::string& op))
(T) {
  using D = double;
  if constexpr (std::is_same_v<T, bool>) {
    if (op == "Not") return [](T x) -> T { return !x; };
  } else {
    if (op == "Neg") return [](T x) { return static_cast<T>(-static_cast<D>(x)); };
    if (op == "Abs") return [](T x) { return static_cast<T>(std::fabs(static_cast<D>(x))); };
    if (op == "Sign") return [](T x) { return static_cast<T>((x > T(0)) - (x < T(0))); };
    if (op == "Relu") return [](T x) { return x > T(0) ? x : T(0); };
    if constexpr (std::is_floating_point_v<T>) {
      if (op == "Sqrt") return [](T x) -> T { return std::sqrt(x); };
      if (op == "Exp") return [](T x) -> T { return std::exp(x); };
      if (op == "Log") return [](T x) -> T { return std::log(x); };
      if (op == "Cos") return [](T x) -> T { return std::cos(x); };
      if (op == "Sin") return [](T x) -> T { return std::sin(x); };
      if (op == "Tan") return [](T x) -> T { return std::tan(x); };
      if (op == "Tanh") return [](T x) -> T { return std::tanh(x); };
      if (op == "Erf") return [](T x) -> T { return std::erf(x); };
      if (op == "Floor") return [](T x) -> T { return std::floor(x); };
      if (op == "Ceil") return [](T x) -> T { return std::ceil(x); };
      if (op == "Round") return [](T x) -> T { return std::nearbyint(x); };
      if (op == "Reciprocal") return [](T x) -> T { return T(1) / x; };
      if (op == "Sigmoid") return [](T x) -> T { return T(1) / (T(1) + std::exp(-x)); };
    }
  }
  fail(ctx, "'", op, "' is not defined for this dtype here");
}

template <typename T>
bool (*compareFn(const RuntimeOpContext& ctx, const std::string& op))(T, T) {
  if (op == "Equal") return [](T a, T b) { return a == b; };
  if (op == "Less") return [](T a, T b) { return a < b; };
  if (op == "Greater") return [](T a, T b) { return a > b; };
  if (op == "LessOrEqual") return [](T a, T b) { return a <= b; };
  if (op == "GreaterOrEqual") return [](T a, T b) { return a >= b; };
  if constexpr (std::is_same_v<T, bool>) {
    if (op == "And") return [](T a, T b) { return a && b; };
    if (op == "Or") return [](T a, T b) { return a || b; };
    if (op == "Xor") return [](T a, T b) { return a != b; };
  }
  fail(ctx, "'", op, "' is not defined for this dtype here");
}

template <typename T>
T (*arithmeticFn(const RuntimeOpContext& ctx, const std::string& op))
(T, T) {
  if constexpr (!std::is_same_v<T, bool>) {
    if (op == "Add") return [](T a, T b) { return static_cast<T>(a + b); };
    if (op == "Sub") return [](T a, T b) { return static_cast<T>(a - b); };
    if (op == "Mul") return [](T a, T b) { return static_cast<T>(a * b); };
    if (op == "Div") return [](T a, T b) { return static_cast<T>(a / b); };
    if (op == "Max") return [](T a, T b) { return a > b ? a : b; };
    if (op == "Min") return [](T a, T b) { return a < b ? a : b; };
    if (op == "Pow") {
      return [](T a, T b) {
        return static_cast<T>(std::pow(static_cast<double>(a), static_cast<double>(b)));
      };
    }
  }
  fail(ctx, "'", op, "' is not defined for this dtype here");
}

// Integer division by zero is a data error, as ONNX Runtime reports it.
template <typename T>
void checkDivisors(const RuntimeOpContext& ctx, const NDArray& b) {
  if constexpr (std::is_integral_v<T>) {
    if (ctx.op() != "Div" && ctx.op() != "Mod") return;
    const T* p = static_cast<const T*>(b.data());
    for (int64_t e = 0; e < b.numel(); ++e) {
      if (p[e] == T(0)) fail(ctx, "integer division by zero (divisor element ", e, ")");
    }
  }
}

}  // namespace

void runUnary(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  NDArray y = ctx.output(0, x.shape());
  const std::string& op = ctx.op();
  visitNumeric(ctx, x.dtype(), [&](auto t) {
    using T = decltype(t);
    const T* in = static_cast<const T*>(x.data());
    T* out = static_cast<T*>(y.data());
    T (*f)(T) = unaryFn<T>(ctx, op);
    for (int64_t e = 0; e < x.numel(); ++e) out[e] = f(in[e]);
  });
}

void runCast(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  NDArray y = ctx.output(0, x.shape());
  if (x.dtype().isString() || y.dtype().isString()) return castStrings(ctx, x, y);
  visitNumeric(ctx, x.dtype(), [&](auto s) {
    using S = decltype(s);
    visitNumeric(ctx, y.dtype(), [&](auto d) {
      using D = decltype(d);
      const S* in = static_cast<const S*>(x.data());
      D* out = static_cast<D*>(y.data());
      for (int64_t e = 0; e < x.numel(); ++e) {
        out[e] = static_cast<D>(in[e]);  // NOLINT(bugprone-signed-char-misuse): int8 numbers
      }
    });
  });
}

void runBinary(RuntimeOpContext& ctx) {
  const NDArray& a = ctx.input(0);
  const NDArray& b = ctx.input(1);
  if (a.dtype() != b.dtype()) {
    fail(ctx, "inputs are ", a.dtype().str(), " and ", b.dtype().str(), "; expected one dtype");
  }
  Shape shape = opdef::knownDims(opdef::broadcastInputs(ContextView(ctx)));  // as at compile time
  NDArray y = ctx.output(0, shape);
  std::array<std::vector<int64_t>, 2> strides = {broadcastStrides(a.shape(), shape),
                                                 broadcastStrides(b.shape(), shape)};
  const std::string& op = ctx.op();
  visitNumeric(ctx, a.dtype(), [&](auto t) {
    using T = decltype(t);
    const T* pa = static_cast<const T*>(a.data());
    const T* pb = static_cast<const T*>(b.data());
    int64_t n = y.numel();
    auto apply = [&](auto* out, auto f) {
      // A broadcast input with all N elements has the output's shape: flat loops then.
      if (a.numel() == n && b.numel() == n) {
        for (int64_t e = 0; e < n; ++e) out[e] = f(pa[e], pb[e]);
      } else if (a.numel() == n && b.numel() == 1) {
        for (int64_t e = 0; e < n; ++e) out[e] = f(pa[e], pb[0]);
      } else if (a.numel() == 1 && b.numel() == n) {
        for (int64_t e = 0; e < n; ++e) out[e] = f(pa[0], pb[e]);
      } else {
        forEachBroadcast<2>(shape, strides, [&](int64_t e, const std::array<int64_t, 2>& o) {
          out[e] = f(pa[o[0]], pb[o[1]]);
        });
      }
    };
    if (y.dtype() == DataType::boolean()) {
      apply(y.data<bool>(), compareFn<T>(ctx, op));
    } else {
      checkDivisors<T>(ctx, b);
      apply(static_cast<T*>(y.data()), arithmeticFn<T>(ctx, op));
    }
  });
}

void runWhere(RuntimeOpContext& ctx) {
  const NDArray& c = ctx.input(0);
  const NDArray& a = ctx.input(1);
  const NDArray& b = ctx.input(2);
  Shape shape = opdef::knownDims(opdef::broadcastInputs(ContextView(ctx)));
  NDArray y = ctx.output(0, shape);
  std::array<std::vector<int64_t>, 3> strides = {broadcastStrides(c.shape(), shape),
                                                 broadcastStrides(a.shape(), shape),
                                                 broadcastStrides(b.shape(), shape)};
  size_t bytes = y.dtype().bytes();
  const bool* pc = c.data<bool>();
  const auto* pa = static_cast<const char*>(a.data());
  const auto* pb = static_cast<const char*>(b.data());
  auto* out = static_cast<char*>(y.data());
  forEachBroadcast<3>(shape, strides, [&](int64_t e, const std::array<int64_t, 3>& o) {
    const char* src = pc[o[0]] ? pa + o[1] * static_cast<int64_t>(bytes)
                               : pb + o[2] * static_cast<int64_t>(bytes);
    std::memcpy(out + e * static_cast<int64_t>(bytes), src, bytes);
  });
}

}  // namespace kiln::runtime::ops
