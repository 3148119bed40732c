// Attribute and input readers for the runtime's op implementations.
#include "op_util.h"

#include "context_view.h"
#include "kiln/opdef/axes.h"
#include "kiln/support/base64.h"

namespace kiln::runtime::ops {

bool hasAttr(const RuntimeOpContext& ctx, const std::string& name) {
  return ctx.attrs().isObject() && ctx.attrs().contains(name);
}

int64_t attrInt(const RuntimeOpContext& ctx, const std::string& name, int64_t dflt) {
  if (!hasAttr(ctx, name)) return dflt;
  const Json& v = ctx.attrs().at(name);
  if (!v.isInt()) fail(ctx, "attribute '", name, "' is ", v.dump(), "; expected an int");
  return v.asInt();
}

double attrFloat(const RuntimeOpContext& ctx, const std::string& name, double dflt) {
  if (!hasAttr(ctx, name)) return dflt;
  const Json& v = ctx.attrs().at(name);
  if (!v.isNumber()) fail(ctx, "attribute '", name, "' is ", v.dump(), "; expected a number");
  return v.asDouble();
}

std::string attrString(const RuntimeOpContext& ctx, const std::string& name,
                       const std::string& dflt) {
  if (!hasAttr(ctx, name)) return dflt;
  const Json& v = ctx.attrs().at(name);
  if (!v.isString()) fail(ctx, "attribute '", name, "' is ", v.dump(), "; expected a string");
  return v.asString();
}

std::vector<int64_t> attrInts(const RuntimeOpContext& ctx, const std::string& name) {
  std::vector<int64_t> out;
  if (!hasAttr(ctx, name)) return out;
  const Json& v = ctx.attrs().at(name);
  if (!v.isArray()) fail(ctx, "attribute '", name, "' is ", v.dump(), "; expected a list of ints");
  for (const Json& e : v.asArray()) {
    if (!e.isInt()) fail(ctx, "attribute '", name, "' has ", e.dump(), "; expected ints");
    out.push_back(e.asInt());
  }
  return out;
}

std::vector<double> attrFloats(const RuntimeOpContext& ctx, const std::string& name) {
  std::vector<double> out;
  if (!hasAttr(ctx, name)) return out;
  const Json& v = ctx.attrs().at(name);
  if (!v.isArray())
    fail(ctx, "attribute '", name, "' is ", v.dump(), "; expected a list of floats");
  for (const Json& e : v.asArray()) {
    if (!e.isNumber()) fail(ctx, "attribute '", name, "' has ", e.dump(), "; expected numbers");
    out.push_back(e.asDouble());
  }
  return out;
}

NDArray attrTensor(const RuntimeOpContext& ctx, const std::string& name) {
  if (!hasAttr(ctx, name)) return {};
  const Json& v = ctx.attrs().at(name);
  if (!v.isObject() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data")) {
    fail(ctx, "attribute '", name, "' is not a tensor ({dtype, shape, data})");
  }
  Shape shape;
  for (const Json& d : v.at("shape").asArray()) shape.push_back(d.asInt());
  std::string bytes = base64Decode(v.at("data").asString(), strCat("attribute '", name, "'"));
  return NDArray::fromBytes(shape, DataType::parse(v.at("dtype").asString()), bytes.data(),
                            bytes.size());
}

std::vector<int64_t> inputInts(const RuntimeOpContext& ctx, size_t i, const char* what) {
  const NDArray& a = ctx.input(i);
  DataType t = a.dtype();
  if (t.lanes != 1 || (t.code != kDLInt && t.code != kDLUInt)) {
    fail(ctx, what, " (input ", i, ") is ", describe(a.shape(), t),
         "; expected an integer type (int32 or int64)");
  }
  std::vector<int64_t> out(static_cast<size_t>(a.numel()));
  visitNumeric(ctx, t, [&](auto v) {
    const auto* p = static_cast<const decltype(v)*>(a.data());
    for (size_t k = 0; k < out.size(); ++k) {
      out[k] = static_cast<int64_t>(p[k]);  // NOLINT(bugprone-signed-char-misuse): int8 numbers
    }
  });
  return out;
}

int64_t inputScalarInt(const RuntimeOpContext& ctx, size_t i, const char* what) {
  std::vector<int64_t> v = inputInts(ctx, i, what);
  if (v.size() != 1) {
    fail(ctx, what, " (input ", i, ") has ", v.size(), " elements; expected one");
  }
  return v[0];
}

double inputScalarDouble(const RuntimeOpContext& ctx, size_t i, const char* what) {
  const NDArray& a = ctx.input(i);
  if (a.numel() != 1) {
    fail(ctx, what, " (input ", i, ") is ", describe(a.shape(), a.dtype()),
         "; expected one element");
  }
  return toDoubles(ctx, a)[0];
}

int64_t normalizeAxis(const RuntimeOpContext& ctx, int64_t axis, int64_t rank, const char* what) {
  return opdef::normalizeAxis(ContextView(ctx), axis, rank, what);
}

int64_t toInt64(const RuntimeOpContext& ctx, double v, const char* what) {
  if (!(v > -4.0e18 && v < 4.0e18)) fail(ctx, what, " is ", v, "; expected a value within +-4e18");
  return static_cast<int64_t>(v);
}

std::vector<double> toDoubles(const RuntimeOpContext& ctx, const NDArray& a) {
  std::vector<double> out(static_cast<size_t>(a.numel()));
  visitNumeric(ctx, a.dtype(), [&](auto t) {
    const auto* p = static_cast<const decltype(t)*>(a.data());
    for (size_t k = 0; k < out.size(); ++k) out[k] = static_cast<double>(p[k]);
  });
  return out;
}

void storeDoubles(const RuntimeOpContext& ctx, NDArray& y, const std::vector<double>& v) {
  visitNumeric(ctx, y.dtype(), [&](auto t) {
    using T = decltype(t);
    T* p = static_cast<T*>(y.data());
    for (size_t k = 0; k < v.size(); ++k) p[k] = static_cast<T>(v[k]);
  });
}

std::vector<int64_t> rowMajorStrides(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

AroundAxis aroundAxis(const Shape& shape, size_t axis) {
  AroundAxis a;
  a.n = shape[axis];
  for (size_t i = axis + 1; i < shape.size(); ++i) a.inner *= shape[i];
  for (size_t i = 0; i < axis; ++i) a.outer *= shape[i];
  return a;
}

NDArray takeSlices(RuntimeOpContext& ctx, const NDArray& x, const Shape& in, size_t axis,
                   const std::vector<int64_t>& keep) {
  Shape out = in;
  out[axis] = static_cast<int64_t>(keep.size());
  NDArray y = ctx.output(0, out);
  std::vector<int64_t> strides = rowMajorStrides(in);
  gatherElements(x, y, [&](const std::vector<int64_t>& idx) {
    int64_t s = 0;
    for (size_t k = 0; k < idx.size(); ++k) {
      s += (k == axis ? keep[static_cast<size_t>(idx[k])] : idx[k]) * strides[k];
    }
    return s;
  });
  return y;
}

NDArray copyToOutput(RuntimeOpContext& ctx, size_t i, const NDArray& x) {
  NDArray y = ctx.output(i, x.shape());
  y.copyFrom(x);
  return y;
}

}  // namespace kiln::runtime::ops
