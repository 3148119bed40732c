// The micro-kernels wrapped as kernels of their own: zeroed accumulators, the tile, the result
// stored. Tests inspect their machine code; benchmarks time them.
#include "kiln/kernel/ukernel.h"
#include "kiln/support/error.h"

namespace kiln::kernel::ukernel {
namespace {

using namespace tir;  // NOLINT(google-build-using-namespace)

// allocate ACC; ACC = 0; BODY; C = ACC (vector by vector).
Stmt wrap(const Buffer& acc, const Buffer& c, int lanes, Stmt body) {
  auto vec = [&](int64_t i) { return ramp(intImm(i * lanes), intImm(1), lanes); };
  std::vector<Stmt> zero, out;
  for (int64_t i = 0; i < acc->numel() / lanes; ++i) {
    zero.push_back(store(acc, vec(i), floatImm(0.0)));
    out.push_back(store(c, vec(i), load(acc, vec(i))));
  }
  return allocate(acc, seq({seq(zero), std::move(body), seq(out)}));
}

NameFn counterNames() {
  auto counter = std::make_shared<int>(0);
  return [counter](const std::string& hint) { return strCat(hint, (*counter)++); };
}

}  // namespace

PrimFunc gemmUkernel(int mr, int nv, int64_t k, const TargetModel& target) {
  DataType f32 = DataType::float32();
  int64_t nr = int64_t{nv} * target.lanes;
  Buffer a = makeBuffer("a", f32, {mr, k});
  Buffer b = makeBuffer("b", f32, {k, nr});
  Buffer c = makeBuffer("c", f32, {mr, nr});
  Buffer acc = makeBuffer("acc", f32, {mr, nr});
  GemmTile tile;
  tile.mr = mr;
  tile.nv = nv;
  tile.unroll = 4;
  tile.aRowStride = k;
  tile.bVectorStride = target.lanes;
  tile.loops = {{intImm(k), 1, nr}};
  Stmt body = gemmTile(tile, target, {a, b, acc, intImm(0), intImm(0)}, counterNames());
  return PrimFunc{gemmName(tile, target), {a, b, c}, wrap(acc, c, target.lanes, body)};
}

PrimFunc convUkernel(int mr, int nv, const TargetModel& target) {
  DataType f32 = DataType::float32();
  int64_t l = target.lanes, icb = 2, width = mr + 2;
  Buffer x = makeBuffer("x", f32, {icb, 3, width, l});     // an input window
  Buffer w = makeBuffer("w", f32, {nv, icb, 3, 3, l, l});  // packed weights
  Buffer c = makeBuffer("c", f32, {mr, nv * l});
  Buffer acc = makeBuffer("acc", f32, {mr, nv * l});
  GemmTile tile;
  tile.mr = mr;
  tile.nv = nv;
  tile.unroll = 4;
  tile.aRowStride = l;
  tile.bVectorStride = icb * 9 * l * l;
  tile.loops = {{intImm(icb), 3 * width * l, 9 * l * l},
                {intImm(3), width * l, 3 * l * l},
                {intImm(3), l, l * l},
                {intImm(l), 1, l}};
  Stmt body = gemmTile(tile, target, {x, w, acc, intImm(0), intImm(0)}, counterNames());
  return PrimFunc{
      strCat("conv_", gemmName(tile, target)), {x, w, c}, wrap(acc, c, target.lanes, body)};
}

PrimFunc dwconvUkernel(int mr, const TargetModel& target) {
  DataType f32 = DataType::float32();
  int64_t l = target.lanes, width = mr + 2;
  Buffer x = makeBuffer("x", f32, {3, width, l});
  Buffer w = makeBuffer("w", f32, {3, 3, l});
  Buffer c = makeBuffer("c", f32, {mr, l});
  Buffer acc = makeBuffer("acc", f32, {mr, l});
  DwconvTile tile;
  tile.mr = mr;
  tile.xPixelStride = l;
  tile.rows = intImm(3);
  tile.xRowStep = width * l;
  tile.wRowStep = 3 * l;
  tile.cols = 3;
  tile.xColStep = l;
  tile.wColStep = l;
  Stmt body = dwconvTile(tile, target, {x, w, acc, intImm(0), intImm(0)}, counterNames());
  return PrimFunc{dwconvName(tile, target), {x, w, c}, wrap(acc, c, target.lanes, body)};
}

}  // namespace kiln::kernel::ukernel
