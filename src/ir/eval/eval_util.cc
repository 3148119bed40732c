// Strided walks over row-major tensors: broadcasting, transposition and slicing are all one walk.
#include "eval_util.h"

#include "kiln/support/error.h"

namespace kiln::ir::eval {

std::vector<int64_t> rowMajorStrides(const Shape& s) {
  std::vector<int64_t> strides(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) strides[d - 1] = strides[d] * s[d];
  return strides;
}

std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out) {
  KILN_CHECK(in.size() <= out.size(), "broadcast to a lower rank");
  std::vector<int64_t> inStrides = rowMajorStrides(in);
  std::vector<int64_t> result(out.size(), 0);
  size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) {
    result[lead + d] = in[d] == 1 ? 0 : inStrides[d];
  }
  return result;
}

StridedWalker::StridedWalker(const Shape& out, std::vector<std::vector<int64_t>> strides,
                             std::vector<int64_t> bases)
    : out_(out),
      strides_(std::move(strides)),
      coord_(out.size(), 0),
      size_(runtime::shapeNumel(out)) {
  offsets_ = bases.empty() ? std::vector<int64_t>(strides_.size(), 0) : std::move(bases);
  KILN_CHECK(offsets_.size() == strides_.size(), "walker bases and strides differ in count");
}

void StridedWalker::next() {
  for (size_t d = out_.size(); d-- > 0;) {
    if (++coord_[d] < out_[d]) {
      for (size_t k = 0; k < strides_.size(); ++k) offsets_[k] += strides_[k][d];
      return;
    }
    for (size_t k = 0; k < strides_.size(); ++k) offsets_[k] -= strides_[k][d] * (out_[d] - 1);
    coord_[d] = 0;
  }
}

NDArray copyAs(const NDArray& src, const TensorType& type) {
  KILN_CHECK(src.numel() == type.numel(), "copyAs changes the element count");
  return NDArray::fromBytes(type.shape, type.dtype, src.data(), src.nbytes());
}

}  // namespace kiln::ir::eval
