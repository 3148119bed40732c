// Range's length and values: the length is exact for integers and takes the difference in the
// element type for floats (as ONNX Runtime does), and the values accumulate in the element type
// (as ONNX's function body does), so a folded Range and a run-time Range are the same tensor.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

// The element count of Range(start, limit, delta) for integers (any signed width, exact) and for
// floats (FLOAT32: the difference rounded to float first). A zero delta or a count beyond what
// memory could hold is an error naming OP.
int64_t rangeCountInt(const OpView& op, int64_t start, int64_t limit, int64_t delta);
int64_t rangeCountFloat(const OpView& op, double start, double limit, double delta, bool float32);

// Range's output shape [n] from the scalar inputs when they are known (an integer Range's count
// may be a size in the graph's symbols), [unknown] otherwise.
DimList rangeShape(const OpView& op, bool isFloat, bool float32);

// The N values start, start + delta, ... accumulated in T.
template <typename T>
void rangeFill(T start, T delta, int64_t n, T* out) {
  T v = start;
  for (int64_t i = 0; i < n; ++i) {
    out[i] = v;
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;  // wraps past the last element instead of overflowing
      v = static_cast<T>(static_cast<U>(v) + static_cast<U>(delta));
    } else {
      v = static_cast<T>(v + delta);
    }
  }
}

}  // namespace kiln::opdef
