// Index walking and element copying shared by the constant evaluators.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::ir::eval {

std::vector<int64_t> rowMajorStrides(const Shape& s);
// Element strides of IN read as if broadcast to OUT (0 along broadcast dims), one per OUT dim.
std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out);

// Walks the elements of a row-major output of shape OUT in order while tracking, for each
// source k, the element offset base[k] + sum_d coord[d] * strides[k][d].
class StridedWalker {
 public:
  StridedWalker(const Shape& out, std::vector<std::vector<int64_t>> strides,
                std::vector<int64_t> bases = {});
  int64_t size() const { return size_; }
  int64_t offset(size_t k) const { return offsets_[k]; }
  void next();

 private:
  Shape out_;
  std::vector<std::vector<int64_t>> strides_;
  std::vector<int64_t> offsets_;
  std::vector<int64_t> coord_;
  int64_t size_;
};

inline void copyElement(const NDArray& dst, int64_t di, const NDArray& src, int64_t si,
                        size_t bytes) {
  std::memcpy(static_cast<char*>(dst.data()) + di * static_cast<int64_t>(bytes),
              static_cast<const char*>(src.data()) + si * static_cast<int64_t>(bytes), bytes);
}

// A new array of TYPE holding a copy of SRC's bytes (same element count): reshape-like ops.
NDArray copyAs(const NDArray& src, const TensorType& type);

}  // namespace kiln::ir::eval
