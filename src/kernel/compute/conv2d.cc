// Convolution (NCHW, 1-D and 2-D, groups, depthwise, dilations, strides, pads): a task computes
// output rows in register tiles of output channels x columns, so the inner loop is branch-free and
// vectorized, and stores each element once through the epilogue.
#include <algorithm>

#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/support/error.h"
#include "window.h"

namespace kiln::kernel {
namespace {

// A 1-D problem is a 2-D one with a height of 1.
struct ConvShape {
  int64_t n, ic, h, w, oc, oh, ow, kh, kw, groups;
  WindowDim y, x;
};

ConvShape convShape(const ir::Node& node, const Dims& xs, const Dims& ws, const Dims& ys) {
  if (xs.size() != 3 && xs.size() != 4) {
    unsupported(node, strCat("input of rank ", xs.size(), "; expected 3 (1-D) or 4 (2-D, NCHW)"));
  }
  if (ws.size() != xs.size() || ys.size() != xs.size())
    unsupported(node, "weight/output rank differs from input rank");
  Dims kernel(ws.begin() + 2, ws.end());
  if (node.attrs.has("kernel_shape") && node.attrs.getInts("kernel_shape", {}) != kernel) {
    unsupported(node, "kernel_shape does not match the weight's shape");
  }
  std::vector<WindowDim> win = resolveWindow(node, xs, ys, kernel);
  ConvShape s{};
  s.n = xs[0];
  s.ic = xs[1];
  s.oc = ys[1];
  s.groups = node.attrs.getInt("group", 1);
  if (win.size() == 1) win.insert(win.begin(), WindowDim{});
  s.y = win[0];
  s.x = win[1];
  s.h = s.y.in, s.w = s.x.in, s.oh = s.y.out, s.ow = s.x.out, s.kh = s.y.kernel, s.kw = s.x.kernel;
  return s;
}

Index outIndex(size_t rank, const Expr& n, const Expr& c, const Expr& oh, const Expr& ow) {
  if (rank == 3) return {n, c, ow};
  return {n, c, oh, ow};
}

int64_t pickTile(int64_t want, int64_t extent) {
  int64_t t = std::max<int64_t>(1, std::min(want, extent));
  while (extent % t != 0) --t;
  return t;
}

// One task's fixed part: which image, output-channel tile and output row it computes.
struct ConvTask {
  Expr n, oc0, oh, icBase;
};

// The input rows one task reads, copied into a local buffer with the horizontal padding as zeros
// and each row split into STRIDE phases (phase q holds padded columns q, q+stride, ...), so every
// tap reads its columns contiguously and no column tile needs clipping. Rows have slack up to
// whole tiles, so ragged last tiles compute full width (and store only the real columns).
struct PaddedRows {
  Buffer buffer;
  int64_t phases = 1, phaseLen = 0;
};

struct ConvKernel {
  LowerContext& ctx;
  const StoreFn& storeFn;
  const ConvShape& s;
  const ir::Value *xv, *wv, *bv;
  DataType t;
  int64_t tile, icg, width;
  size_t rank;
  PaddedRows pad;

  // The start of input row (ic, kh) of the task: an offset into x, or into the padded copy.
  Expr rowStart(const ConvTask& k, const Expr& ic, const Expr& kh) const {
    if (pad.buffer != nullptr) return (ic * intImm(s.kh) + kh) * intImm(pad.phases * pad.phaseLen);
    return ((k.n * intImm(s.ic) + k.icBase + ic) * intImm(s.h) + s.y.inputPos(k.oh, kh)) *
           intImm(s.w);
  }

  // Offset of tap KW from the row start, for output column 0.
  Expr tapOffset(const Expr& kw) const {
    if (pad.buffer == nullptr) return s.x.inputPos(intImm(0), kw);
    Expr c = kw * intImm(s.x.dilation);
    return binary(BinaryOp::kFloorMod, c, intImm(pad.phases)) * intImm(pad.phaseLen) +
           floorDivBy(c, pad.phases);
  }

  Expr readX(const Expr& at) const {
    return pad.buffer != nullptr ? load(pad.buffer, at) : ctx.readFlat(xv, at);
  }

  // Output columns [ow0, ow0 + STORED) of the task, computed as a tile x WIDTH block in a local
  // buffer with constant indices, which LLVM keeps in vector registers. CHECKED tiles clip each
  // tap's column range to the input (only without a padded copy); others read unclipped.
  Stmt columns(const ConvTask& k, const Expr& ow0, int64_t w, int64_t stored, bool checked,
               bool allRows) const {
    Buffer acc = ctx.localBuffer("acc", t, {tile * w});
    auto at = [&](int64_t r, const Expr& j) { return intImm(r * w) + j; };
    std::vector<Stmt> init, epilogue;
    for (int64_t r = 0; r < tile; ++r) {
      Expr b0 = bv != nullptr ? ctx.readFlat(bv, k.oc0 + intImm(r)) : constant(0, t);
      init.push_back(loop(ctx, "j", w, ctx.vectorKind(),
                          [&](const Expr& j) { return store(acc, at(r, j), b0); }));
      epilogue.push_back(loop(ctx, "j", stored, ctx.vectorKind(), [&](const Expr& j) {
        return storeFn(outIndex(rank, k.n, k.oc0 + intImm(r), k.oh, ow0 + j), load(acc, at(r, j)));
      }));
    }
    Expr khLo = s.y.tapLo(k.oh);
    Expr khExt = max(intImm(0), s.y.tapHi(k.oh) - khLo);
    if (allRows) khLo = intImm(0), khExt = intImm(s.kh);
    Stmt body = loop(ctx, "ic", icg, ForKind::kSerial, [&](const Expr& ic) {
      return loopRange(ctx, "kh", khLo, khExt, ForKind::kSerial, [&](const Expr& kh) {
        return bindVar(ctx, "x_row", rowStart(k, ic, kh), [&](const Expr& xRow) {
          auto tap = [&](const Expr& kw) {
            return taps(k, acc, w, checked, ow0, ic, kh, kw, xRow);
          };
          if (checked && ow0->kind == ExprKind::kIntImm && s.kw <= 16) {
            // Unrolled taps make each clipped column range a constant.
            std::vector<Stmt> all;
            for (int64_t kw = 0; kw < s.kw; ++kw) all.push_back(tap(intImm(kw)));
            return seq(all);
          }
          return loop(ctx, "kw", s.kw, ForKind::kSerial, tap);
        });
      });
    });
    return allocate(acc, seq({seq(init), body, seq(epilogue)}));
  }

  Stmt taps(const ConvTask& k, const Buffer& acc, int64_t w, bool checked, const Expr& ow0,
            const Expr& ic, const Expr& kh, const Expr& kw, const Expr& xRow) const {
    Expr lo = intImm(0), ext = intImm(w);
    if (checked) {
      lo = max(intImm(0), s.x.outLo(kw) - ow0);
      ext = max(intImm(0), min(intImm(w), s.x.outHi(kw) - ow0) - lo);
    }
    // Column j of the tile reads x at base + j * step.
    int64_t step = pad.buffer != nullptr ? 1 : s.x.stride;
    Expr base = xRow + tapOffset(kw) + ow0 * intImm(step);
    std::vector<Expr> wVars, wVals;
    for (int64_t r = 0; r < tile; ++r) {
      Expr wIdx =
          (((k.oc0 + intImm(r)) * intImm(icg) + ic) * intImm(s.kh) + kh) * intImm(s.kw) + kw;
      wVars.push_back(ctx.freshVar("wv", t));
      wVals.push_back(ctx.readFlat(wv, wIdx));
    }
    return bindVar(ctx, "x_at", base, [&](const Expr& xBase) {
      Stmt inner = loopRange(ctx, "j", lo, ext, ctx.vectorKind(), [&](const Expr& j) {
        Expr x = readX(xBase + j * intImm(step));
        std::vector<Stmt> updates;
        for (int64_t r = 0; r < tile; ++r) {
          Expr a = intImm(r * w) + j;
          updates.push_back(store(acc, a, load(acc, a) + wVars[r] * x));
        }
        return seq(updates);
      });
      for (int64_t r = tile; r-- > 0;) inner = let(wVars[r], wVals[r], inner);
      return inner;
    });
  }

  // [first, end) of the outputs of W whose whole window lies inside the input.
  static std::pair<int64_t, int64_t> interior(const WindowDim& w) {
    int64_t first = std::min(ceilDiv(w.padBegin, w.stride), w.out);
    int64_t last = w.in - 1 + w.padBegin - (w.kernel - 1) * w.dilation;
    int64_t end = std::clamp<int64_t>(last < 0 ? 0 : last / w.stride + 1, first, w.out);
    return {first, end};
  }

  // All output columns of one output row of the task. Rows where every kernel row reads inside
  // the input get constant kh bounds (so LLVM unrolls the taps); rows near the edges clip them.
  Stmt row(const ConvTask& k) const {
    auto [firstH, endH] = interior(s.y);
    if (firstH == 0 && endH == s.oh) return rowColumns(k, true);
    Expr inside = compare(CompareOp::kGE, k.oh, intImm(firstH)) &&
                  compare(CompareOp::kLT, k.oh, intImm(endH));
    return ifThenElse(inside, rowColumns(k, true), rowColumns(k, false));
  }

  Stmt rowColumns(const ConvTask& k, bool allRows) const {
    std::vector<Stmt> parts;
    if (pad.buffer != nullptr) {
      int64_t full = s.ow / width, rem = s.ow % width;
      parts.push_back(loop(ctx, "owb", full, ForKind::kSerial, [&](const Expr& b) {
        return columns(k, b * intImm(width), width, width, false, allRows);
      }));
      if (rem > 0) parts.push_back(columns(k, intImm(full * width), width, rem, false, allRows));
      return seq(parts);
    }
    auto [first, end] = interior(s.x);
    int64_t full = (end - first) / width, rem = (end - first) % width;
    if (first > 0) parts.push_back(edgeColumns(k, 0, first, allRows));
    int64_t start = first;  // a copy: capturing a structured binding needs clang 16
    parts.push_back(loop(ctx, "owb", full, ForKind::kSerial, [&](const Expr& b) {
      return columns(k, intImm(start) + b * intImm(width), width, width, false, allRows);
    }));
    if (rem > 0 && full > 0) {
      // The last tile overlaps the previous one: recomputing a few columns beats a narrow tile.
      parts.push_back(columns(k, intImm(end - width), width, width, false, allRows));
    } else if (rem > 0) {
      parts.push_back(columns(k, intImm(first), rem, rem, false, allRows));
    }
    if (end < s.ow) parts.push_back(edgeColumns(k, end, s.ow - end, allRows));
    return seq(parts);
  }

  // Output columns [from, from + N) whose taps may read outside the input: one clipped tile, or
  // tiles of WIDTH when the edge is wider (huge pads), so the accumulator stays small.
  Stmt edgeColumns(const ConvTask& k, int64_t from, int64_t n, bool allRows) const {
    if (n <= width) return columns(k, intImm(from), n, n, true, allRows);
    int64_t full = n / width, rem = n % width;
    Stmt tiles = loop(ctx, "owe", full, ForKind::kSerial, [&](const Expr& b) {
      return columns(k, intImm(from) + b * intImm(width), width, width, true, allRows);
    });
    if (rem == 0) return tiles;
    return seq({tiles, columns(k, intImm(from + full * width), rem, rem, true, allRows)});
  }

  // Copies the task's input rows (valid kernel rows only) into the padded, phase-split buffer.
  Stmt fillPad(const ConvTask& k) const {
    Expr khLo = s.y.tapLo(k.oh);
    Expr khExt = max(intImm(0), s.y.tapHi(k.oh) - khLo);
    int64_t stride = pad.phases, len = pad.phaseLen, pl = s.x.padBegin;
    return loop(ctx, "ic", icg, ForKind::kSerial, [&](const Expr& ic) {
      return loopRange(ctx, "kh", khLo, khExt, ForKind::kSerial, [&](const Expr& kh) {
        Expr dst = (ic * intImm(s.kh) + kh) * intImm(stride * len);
        Expr src = ((k.n * intImm(s.ic) + k.icBase + ic) * intImm(s.h) + s.y.inputPos(k.oh, kh)) *
                   intImm(s.w);
        return bindVars(ctx, {"dst", "src"}, {dst, src}, [&](const Index& d) {
          std::vector<Stmt> phases;
          for (int64_t q = 0; q < stride; ++q) {
            // Padded column u * stride + q is input column u * stride + q - pl.
            int64_t lo = std::clamp<int64_t>(ceilDiv(pl - q, stride), 0, len);
            int64_t hi = std::clamp<int64_t>(ceilDiv(pl + s.w - q, stride), lo, len);
            Expr row = d[0] + intImm(q * len);
            auto zero = [&](int64_t from, int64_t n) {
              return loop(ctx, "u", n, ctx.vectorKind(), [&](const Expr& u) {
                return store(pad.buffer, row + intImm(from) + u, constant(0, t));
              });
            };
            Stmt copy = loop(ctx, "u", hi - lo, ctx.vectorKind(), [&](const Expr& u) {
              Expr col = (intImm(lo) + u) * intImm(stride) + intImm(q - pl);
              return store(pad.buffer, row + intImm(lo) + u, ctx.readFlat(xv, d[1] + col));
            });
            phases.push_back(seq({zero(0, lo), copy, zero(hi, len - hi)}));
          }
          return seq(phases);
        });
      });
    });
  }
};

// Accumulator tiles one conv kernel may hold at once: each row form (all kernel rows, clipped
// kernel rows) has up to six column spans (left edge tiles and remainder, interior tiles, last
// tile, right edge tiles and remainder).
constexpr int64_t kAccBuffers = 12;

// Whether (and how) to copy input rows into a padded buffer: with horizontal padding, a stride,
// or rows narrower than a tile, as long as the copy and the accumulators fit the stack budget of
// local buffers; otherwise tiles read the input directly with clipped column ranges.
PaddedRows planPaddedRows(LowerContext& ctx, const ConvShape& s, DataType t, int64_t icg,
                          int64_t tile, int64_t width) {
  bool want = s.x.padBegin + s.x.padEnd > 0 || s.x.stride > 1 || s.ow < width;
  if (ctx.knob("pad_rows", want ? 1 : 0, 0, 1) == 0) return {};
  int64_t tiles = ceilDiv(s.ow, width);
  // Highest padded column any (slack) tile column reads.
  int64_t reach = (tiles * width - 1) * s.x.stride + (s.x.kernel - 1) * s.x.dilation + 1;
  int64_t cols = std::max(s.w + s.x.padBegin + s.x.padEnd, reach);
  PaddedRows pad;
  pad.phases = s.x.stride;
  pad.phaseLen = ceilDiv(cols, s.x.stride) + ceilDiv((s.x.kernel - 1) * s.x.dilation, s.x.stride);
  int64_t numel = icg * s.kh * pad.phases * pad.phaseLen;
  auto bytes = static_cast<int64_t>(t.bytes());
  if (numel * bytes > kMaxLocalBufferBytes ||
      numel * bytes + kAccBuffers * tile * width * bytes > kMaxLocalBytesPerKernel) {
    return {};
  }
  pad.buffer = ctx.localBuffer("xpad", t, {numel});
  return pad;
}

Stmt emitConv(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  const ir::Value* xv = node.inputs[0];
  const ir::Value* wv = node.inputs[1];
  const ir::Value* bv = hasInput(node, 2) ? node.inputs[2] : nullptr;
  const Dims& ys = node.outputs[0]->type.shape;
  ConvShape s = convShape(node, xv->type.shape, wv->type.shape, ys);
  if (s.groups <= 0 || s.ic % s.groups != 0 || s.oc % s.groups != 0) {
    unsupported(node, strCat("group=", s.groups, " does not divide ", s.ic, " input and ", s.oc,
                             " output channels"));
  }
  int64_t icg = s.ic / s.groups, ocg = s.oc / s.groups;
  if (wv->type.shape[1] != icg) {
    unsupported(node, "weight's input channels do not match the input / group");
  }
  DataType t = node.outputs[0]->type.dtype;
  if (!t.isFloat()) unsupported(node, strCat("dtype ", t.str(), "; expected a float type"));
  int64_t lanes = std::max(1, ctx.config().target.lanes);
  // Register tiles stay register-sized even under odd knob values, so every accumulator fits
  // the stack budget of local buffers.
  int64_t accCap = localElementsCap(t, 2 * kAccBuffers);
  int64_t tile = pickTile(std::min(accCap, ctx.knob("oc_tile", ocg % 8 == 0 ? 8 : 4)), ocg);
  int64_t width =
      std::clamp<int64_t>(ctx.knob("ow_tile", lanes), 1, std::max<int64_t>(1, accCap / tile));
  int64_t blocks = s.oc / tile;
  // Without groups all output-channel tiles read the same input rows: a task takes several
  // tiles of one output row, so the padded copy is shared.
  int64_t perTask =
      s.groups == 1 ? ctx.knob("oc_tiles_per_task", s.n * s.oh >= 16 ? blocks : 1) : 1;
  perTask = std::clamp<int64_t>(perTask, 1, blocks);
  int64_t chunks = ceilDiv(blocks, perTask);
  ConvKernel kernel{ctx, storeFn, s,         xv,
                    wv,  bv,      t,         tile,
                    icg, width,   ys.size(), planPaddedRows(ctx, s, t, icg, tile, width)};

  return loop(ctx, "task", s.n * chunks * s.oh, ctx.parallelKind(), [&](const Expr& task) {
    Expr rest = floorDivBy(task, s.oh);
    Index derived{binary(BinaryOp::kFloorMod, task, intImm(s.oh)), floorDivBy(rest, chunks),
                  binary(BinaryOp::kFloorMod, rest, intImm(chunks)) * intImm(perTask)};
    return bindVars(ctx, {"oh", "n", "b0"}, derived, [&](const Index& d) {
      const Expr &oh = d[0], &n = d[1], &b0 = d[2];
      Expr count =
          blocks % perTask == 0 ? intImm(perTask) : min(intImm(perTask), intImm(blocks) - b0);
      auto block = [&](const Expr& b, bool fill) {
        Expr oc0 = b * intImm(tile);
        Expr icBase = floorDivBy(oc0, ocg) * intImm(icg);
        return bindVars(ctx, {"oc0", "ic_base"}, {oc0, icBase}, [&](const Index& v) {
          ConvTask k{n, v[0], oh, v[1]};
          return fill ? seq({kernel.fillPad(k), kernel.row(k)}) : kernel.row(k);
        });
      };
      bool padded = kernel.pad.buffer != nullptr;
      if (!padded)
        return loopRange(ctx, "ob", b0, count, ForKind::kSerial,
                         [&](const Expr& b) { return block(b, false); });
      if (s.groups == 1) {
        ConvTask shared{n, intImm(0), oh, intImm(0)};
        Stmt blocksLoop = loopRange(ctx, "ob", b0, count, ForKind::kSerial,
                                    [&](const Expr& b) { return block(b, false); });
        return allocate(kernel.pad.buffer, seq({kernel.fillPad(shared), blocksLoop}));
      }
      return allocate(kernel.pad.buffer, loopRange(ctx, "ob", b0, count, ForKind::kSerial,
                                                   [&](const Expr& b) { return block(b, true); }));
    });
  });
}

}  // namespace

void addConvLowerings(LoweringMap& table) {
  table["Conv"].emit = emitConv;
  table["ConvTranspose"].emit = emitConvTranspose;
}

}  // namespace kiln::kernel
