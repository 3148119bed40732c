// If, Loop and Scan: the node picks or repeats its compiled bodies (RuntimeOpContext::body),
// moving values between iterations and stacking the per-iteration outputs.
#include <limits>

#include "op_util.h"

namespace kiln::runtime::ops {
namespace {

int64_t rankOf(const NDArray& a) { return static_cast<int64_t>(a.shape().size()); }

bool truth(const RuntimeOpContext& ctx, const NDArray& a, const char* what) {
  if (a.dtype() != DataType::boolean() || a.numel() != 1) {
    fail(ctx, what, " is ", describe(a.shape(), a.dtype()), "; expected one bool");
  }
  return *static_cast<const bool*>(a.data());
}

// Tensors and lists (sequences, optionals) alike: the node's input J as body input I, body output
// O as body input I (a loop-carried value), and node output J from body output O or input I.
void inputToBody(const RuntimeOpContext& ctx, size_t j, Subgraph& body, size_t i) {
  if (body.inputKind(i) != ValueKind::kTensor) return body.setListInput(i, ctx.listInput(j));
  body.setInput(i, ctx.input(j));
}

// A tensor where an optional tensor is expected: the optional holding a copy of it (the body's
// output memory is reused by its next run; a list's tensors are never written).
TensorList holding(const NDArray& tensor) { return TensorList{{tensor.clone()}, false}; }

void carry(Subgraph& body, size_t o, size_t i) {
  if (body.inputKind(i) == ValueKind::kTensor) return body.setInput(i, body.output(o));
  if (body.outputKind(o) == ValueKind::kTensor)
    return body.setListInput(i, holding(body.output(o)));
  body.setListInput(i, body.listOutput(o));
}

void outputFromBody(RuntimeOpContext& ctx, size_t j, const Subgraph& body, size_t o) {
  if (!ctx.hasOutput(j)) return;  // nothing reads it
  if (body.outputKind(o) != ValueKind::kTensor) return ctx.setListOutput(j, body.listOutput(o));
  if (ctx.outputKind(j) != ValueKind::kTensor) return ctx.setListOutput(j, holding(body.output(o)));
  copyToOutput(ctx, j, body.output(o));
}

// An optional input may give an output typed as what it holds (a Loop whose body leaves the
// optional as its value, run no time): it must then hold one.
void outputFromInput(RuntimeOpContext& ctx, size_t j, size_t i) {
  if (!ctx.hasOutput(j)) return;  // nothing reads it
  if (ctx.inputKind(i) == ValueKind::kTensor) {
    copyToOutput(ctx, j, ctx.input(i));
    return;
  }
  const TensorList& list = ctx.listInput(i);
  if (list.none && !isOptional(ctx.outputKind(j))) {
    fail(ctx, "input ", i, " is an empty optional, but output ", j, " is a ",
         valueKindName(ctx.outputKind(j)), ", which it would give unchanged");
  }
  if (ctx.outputKind(j) == ValueKind::kTensor) {
    copyToOutput(ctx, j, list.items.at(0));
  } else {
    ctx.setListOutput(j, list);
  }
}

// A declared shape with its unknown dims as 0: what an output of no iterations holds.
Shape emptyShape(Shape shape) {
  for (int64_t& d : shape) d = d == kDynamicDim ? 0 : d;
  return shape;
}

void checkInputs(const RuntimeOpContext& ctx, const Subgraph& body, size_t expected) {
  if (body.numInputs() != expected) {
    fail(ctx, "its body takes ", body.numInputs(), " inputs; the node gives it ", expected);
  }
}

// One value per iteration, stacked along a new leading axis as they come.
class Stack {
 public:
  void push(const RuntimeOpContext& ctx, const NDArray& v, size_t k) {
    if (count_ == 0) {
      shape_ = v.shape();
    } else if (v.shape() != shape_) {
      fail(ctx, "scan output ", k, " is ", shapeStr(v.shape()), " in iteration ", count_, " but ",
           shapeStr(shape_), " in iteration 0; a scan output stacks values of one shape");
    }
    const auto* p = static_cast<const char*>(v.data());
    bytes_.insert(bytes_.end(), p, p + v.nbytes());
    ++count_;
  }
  void write(RuntimeOpContext& ctx, size_t out, const Shape& declared) {
    Shape shape = count_ ? shape_ : emptyShape(declared);
    shape.insert(shape.begin(), count_);
    NDArray y = ctx.output(out, shape);
    if (!bytes_.empty()) std::memcpy(y.data(), bytes_.data(), bytes_.size());
  }

 private:
  Shape shape_;
  int64_t count_ = 0;
  std::vector<char> bytes_;
};

// Slice T along AXIS of X, copied into the contiguous SLICE (X's shape without AXIS).
void readSlice(const NDArray& x, size_t axis, int64_t t, NDArray& slice) {
  AroundAxis a = aroundAxis(x.shape(), axis);
  size_t row = static_cast<size_t>(a.inner) * x.dtype().bytes();
  const auto* src = static_cast<const char*>(x.data());
  auto* dst = static_cast<char*>(slice.data());
  for (int64_t o = 0; o < a.outer; ++o) {
    std::memcpy(dst + static_cast<size_t>(o) * row, src + static_cast<size_t>(o * a.n + t) * row,
                row);
  }
}

// SLICE written at position T along AXIS of Y.
void writeSlice(NDArray& y, size_t axis, int64_t t, const NDArray& slice) {
  AroundAxis a = aroundAxis(y.shape(), axis);
  size_t row = static_cast<size_t>(a.inner) * y.dtype().bytes();
  auto* dst = static_cast<char*>(y.data());
  const auto* src = static_cast<const char*>(slice.data());
  for (int64_t o = 0; o < a.outer; ++o) {
    std::memcpy(dst + static_cast<size_t>(o * a.n + t) * row, src + static_cast<size_t>(o) * row,
                row);
  }
}

Shape withoutAxis(Shape s, size_t axis) {
  s.erase(s.begin() + static_cast<std::ptrdiff_t>(axis));
  return s;
}

std::vector<int64_t> perValue(const RuntimeOpContext& ctx, const char* name, size_t count) {
  std::vector<int64_t> v = attrInts(ctx, name);
  if (v.empty()) return std::vector<int64_t>(count, 0);
  if (v.size() != count) fail(ctx, name, " has ", v.size(), " entries; expected ", count);
  return v;
}

// One scan over STATES and SCANNED: LENGTH iterations, of STEPS along each scanned input's axis.
// Final states go to STATE_OUT, each iteration's scan outputs to SCAN_OUT(k, iteration output)
// at their position.
struct ScanPass {
  std::vector<NDArray> states, scanned;
  std::vector<size_t> inAxes;
  std::vector<int64_t> inDirs, outDirs;
  int64_t length = 0;
};

template <typename StateOut, typename ScanOut>
void scanOnce(Subgraph& body, const ScanPass& p, StateOut stateOut, ScanOut scanOut) {
  size_t n = p.states.size(), m = p.scanned.size();
  for (size_t j = 0; j < n; ++j) body.setInput(j, p.states[j]);
  std::vector<NDArray> slices;
  for (size_t s = 0; s < m; ++s) {
    slices.push_back(
        NDArray::empty(withoutAxis(p.scanned[s].shape(), p.inAxes[s]), p.scanned[s].dtype()));
  }
  for (int64_t t = 0; t < p.length; ++t) {
    for (size_t s = 0; s < m; ++s) {
      readSlice(p.scanned[s], p.inAxes[s], p.inDirs[s] ? p.length - 1 - t : t, slices[s]);
      body.setInput(n + s, slices[s]);
    }
    body.run();
    for (size_t j = 0; j < n; ++j) body.setInput(j, body.output(j));
    for (size_t k = n; k < body.numOutputs(); ++k) {
      int64_t at = p.outDirs[k - n] ? p.length - 1 - t : t;
      scanOut(k - n, at, body.output(k));
    }
  }
  for (size_t j = 0; j < n; ++j) stateOut(j, p.length ? body.output(j) : p.states[j]);
}

// Scan from opset 9: states, then scanned inputs along scan_input_axes.
void runScan9(RuntimeOpContext& ctx, Subgraph& body, size_t m) {
  size_t total = ctx.numInputs(), n = total - m, k = body.numOutputs() - n;
  ScanPass p;
  for (size_t j = 0; j < n; ++j) p.states.push_back(ctx.input(j));
  std::vector<int64_t> axes = perValue(ctx, "scan_input_axes", m);
  p.inDirs = perValue(ctx, "scan_input_directions", m);
  p.outDirs = perValue(ctx, "scan_output_directions", k);
  std::vector<int64_t> outAxes = perValue(ctx, "scan_output_axes", k);
  for (size_t s = 0; s < m; ++s) {
    const NDArray& x = ctx.input(n + s);
    auto axis = static_cast<size_t>(normalizeAxis(ctx, axes[s], rankOf(x), "scan_input_axes"));
    int64_t len = x.shape()[axis];
    if (s > 0 && len != p.length) {
      fail(ctx, "scanned input ", s, " is ", shapeStr(x.shape()), " with ", len,
           " steps along its axis; scanned input 0 has ", p.length);
    }
    p.scanned.push_back(x);
    p.inAxes.push_back(axis);
    p.length = len;
  }
  std::vector<NDArray> outs(k);
  auto scanOut = [&](size_t i, int64_t at, const NDArray& v) {
    auto rank = static_cast<int64_t>(v.shape().size()) + 1;
    auto axis = static_cast<size_t>(normalizeAxis(ctx, outAxes[i], rank, "scan_output_axes"));
    if (!outs[i].defined()) {
      Shape shape = v.shape();
      shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(axis), p.length);
      outs[i] = ctx.output(n + i, shape);
    } else if (withoutAxis(outs[i].shape(), axis) != v.shape()) {
      fail(ctx, "scan output ", i, " changes shape to ", shapeStr(v.shape()), " in step ", at);
    }
    writeSlice(outs[i], axis, at, v);
  };
  scanOnce(
      body, p, [&](size_t j, const NDArray& v) { copyToOutput(ctx, j, v); }, scanOut);
  for (size_t i = 0; i < k; ++i) {
    if (outs[i].defined()) continue;  // no steps
    Shape shape = emptyShape(body.outputShape(n + i));
    auto axis = static_cast<size_t>(
        normalizeAxis(ctx, outAxes[i], static_cast<int64_t>(shape.size()) + 1, "scan_output_axes"));
    shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(axis), 0);
    ctx.output(n + i, shape);
  }
}

// Scan of opset 8: sequence_lens, then states and scanned inputs that all lead with a batch axis;
// each batch entry is scanned on its own, along axis 1, for its sequence length.
void runScan8(RuntimeOpContext& ctx, Subgraph& body, size_t m) {
  size_t total = ctx.numInputs() - 1, n = total - m, k = body.numOutputs() - n;
  const NDArray& first = ctx.input(1 + n);
  if (rankOf(first) < 2)
    fail(ctx, "scanned input 0 is ", shapeStr(first.shape()), "; expected [batch, steps, ...]");
  int64_t batch = first.shape()[0], steps = first.shape()[1];
  std::vector<int64_t> lens(static_cast<size_t>(batch), steps);
  if (ctx.hasInput(0)) lens = inputInts(ctx, 0, "sequence_lens");
  if (static_cast<int64_t>(lens.size()) != batch) {
    fail(ctx, "sequence_lens has ", lens.size(), " entries for a batch of ", batch);
  }
  std::vector<int64_t> dirs = perValue(ctx, "directions", m);
  std::vector<NDArray> stateOut(n), scanOut(k);
  for (int64_t b = 0; b < batch; ++b) {
    if (lens[b] < 0 || lens[b] > steps) {
      fail(ctx, "sequence_lens[", b, "] is ", lens[b], "; expected 0 to ", steps);
    }
    ScanPass p;
    auto entry = [&](const NDArray& x) {
      if (rankOf(x) < 1 || x.shape()[0] != batch) {
        fail(ctx, "input ", shapeStr(x.shape()), " does not lead with the batch of ", batch);
      }
      Shape inner(x.shape().begin() + 1, x.shape().end());
      return x.view(inner, x.dtype(),
                    static_cast<size_t>(b) * x.nbytes() / static_cast<size_t>(batch));
    };
    for (size_t j = 0; j < n; ++j) p.states.push_back(entry(ctx.input(1 + j)));
    for (size_t s = 0; s < m; ++s) {
      NDArray x = entry(ctx.input(1 + n + s));
      if (rankOf(x) < 1 || x.shape()[0] != steps) {
        fail(ctx, "scanned input ", s, " has ", rankOf(x) ? x.shape()[0] : 0,
             " steps; scanned input 0 has ", steps);
      }
      p.scanned.push_back(x);
      p.inAxes.push_back(0);
    }
    p.inDirs = dirs;
    p.outDirs = std::vector<int64_t>(k, 0);
    p.length = lens[b];
    // Outputs are allocated from the first entry's shapes; later entries must agree.
    auto slot = [&](std::vector<NDArray>& outs, size_t i, size_t out, Shape shape) -> NDArray {
      if (!outs[i].defined()) {
        shape.insert(shape.begin(), batch);
        outs[i] = ctx.output(out, shape);
        std::memset(outs[i].data(), 0, outs[i].nbytes());
      }
      Shape inner(outs[i].shape().begin() + 1, outs[i].shape().end());
      return outs[i].view(inner, outs[i].dtype(),
                          static_cast<size_t>(b) * outs[i].nbytes() / static_cast<size_t>(batch));
    };
    auto onState = [&](size_t j, const NDArray& v) {
      NDArray y = slot(stateOut, j, j, v.shape());
      if (y.shape() != v.shape()) fail(ctx, "state ", j, " changes shape across the batch");
      std::memcpy(y.data(), v.data(), v.nbytes());
    };
    auto onScan = [&](size_t i, int64_t at, const NDArray& v) {
      Shape shape = v.shape();
      shape.insert(shape.begin(), steps);
      NDArray y = slot(scanOut, i, n + i, shape);
      if (withoutAxis(y.shape(), 0) != v.shape()) fail(ctx, "scan output ", i, " changes shape");
      writeSlice(y, 0, at, v);
    };
    scanOnce(body, p, onState, onScan);
  }
  for (size_t i = 0; i < k; ++i) {
    if (scanOut[i].defined()) continue;  // a batch of 0, or no steps
    Shape shape = emptyShape(body.outputShape(n + i));
    shape.insert(shape.begin(), steps);
    shape.insert(shape.begin(), batch);
    ctx.output(n + i, shape);
  }
  for (size_t j = 0; j < n; ++j) {
    if (!stateOut[j].defined()) copyToOutput(ctx, j, ctx.input(1 + j));
  }
}

}  // namespace

void runIf(RuntimeOpContext& ctx) {
  bool cond = truth(ctx, ctx.input(0), "cond");
  Subgraph& branch = ctx.body(cond ? "then_branch" : "else_branch");
  checkInputs(ctx, branch, 0);
  if (branch.numOutputs() != ctx.numOutputs()) {
    fail(ctx, "its branch has ", branch.numOutputs(), " outputs; the node has ", ctx.numOutputs());
  }
  branch.run();
  for (size_t i = 0; i < ctx.numOutputs(); ++i) outputFromBody(ctx, i, branch, i);
}

// M iterations at most (none given: unbounded), while the condition holds; the body's first
// output is the next condition, then the loop-carried values, then the scan outputs.
void runLoop(RuntimeOpContext& ctx) {
  Subgraph& body = ctx.body("body");
  size_t n = ctx.numInputs();
  if (n < 2) fail(ctx, "has ", n, " inputs; expected M, cond and the loop-carried values");
  size_t carried = n - 2;
  checkInputs(ctx, body, n);
  if (body.numOutputs() < 1 + carried || body.numOutputs() - 1 != ctx.numOutputs()) {
    fail(ctx, "its body has ", body.numOutputs(), " outputs; expected the condition and ",
         ctx.numOutputs(), " more");
  }
  int64_t trips =
      ctx.hasInput(0) ? inputScalarInt(ctx, 0, "M") : std::numeric_limits<int64_t>::max();
  bool cond = ctx.hasInput(1) ? truth(ctx, ctx.input(1), "cond") : true;
  for (size_t j = 0; j < carried; ++j) inputToBody(ctx, 2 + j, body, 2 + j);
  std::vector<Stack> stacks(body.numOutputs() - 1 - carried);
  for (size_t k = 0; k < stacks.size(); ++k) {
    if (body.outputKind(1 + carried + k) != ValueKind::kTensor) {
      fail(ctx, "scan output ", k, " of its body is a sequence or optional; it must be a tensor");
    }
  }
  NDArray iteration = NDArray::empty({}, DataType::int64());
  NDArray condition = NDArray::empty({}, DataType::boolean());
  int64_t i = 0;
  for (; i < trips && cond; ++i) {
    *static_cast<int64_t*>(iteration.data()) = i;
    *static_cast<bool*>(condition.data()) = cond;
    body.setInput(0, iteration);
    body.setInput(1, condition);
    body.run();
    cond = truth(ctx, body.output(0), "the body's condition");
    for (size_t j = 0; j < carried; ++j) carry(body, 1 + j, 2 + j);
    for (size_t k = 0; k < stacks.size(); ++k) stacks[k].push(ctx, body.output(1 + carried + k), k);
  }
  for (size_t j = 0; j < carried; ++j) {
    if (i > 0) {
      outputFromBody(ctx, j, body, 1 + j);
    } else {
      outputFromInput(ctx, j, 2 + j);
    }
  }
  for (size_t k = 0; k < stacks.size(); ++k) {
    stacks[k].write(ctx, carried + k, body.outputShape(1 + carried + k));
  }
}

void runScan(RuntimeOpContext& ctx) {
  Subgraph& body = ctx.body("body");
  auto m = attrInt(ctx, "num_scan_inputs", 0);
  bool batched = attrInt(ctx, "kiln.batched", 0) != 0;
  size_t total = ctx.numInputs() - (batched ? 1 : 0);
  if (m < 1 || static_cast<size_t>(m) > total) {
    fail(ctx, "num_scan_inputs is ", m, " for ", total, " states and scanned inputs");
  }
  checkInputs(ctx, body, total);
  size_t n = total - static_cast<size_t>(m);
  if (body.numOutputs() < n || body.numOutputs() != ctx.numOutputs()) {
    fail(ctx, "its body has ", body.numOutputs(), " outputs; the node has ", ctx.numOutputs(),
         " for ", n, " states");
  }
  if (batched) return runScan8(ctx, body, static_cast<size_t>(m));
  runScan9(ctx, body, static_cast<size_t>(m));
}

}  // namespace kiln::runtime::ops
