// The rules of numpy-style matrix products (MatMul, MatMulInteger, QLinearMatMul): a 1-D operand
// is promoted to a matrix and its dim dropped again; the batch dims broadcast.
#pragma once

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

// The output dims of input A @ input B; fails naming both when the inner dims differ or the
// batch dims do not broadcast (an inner dim known only at run time is checked then).
DimList matmulShape(const OpView& op, size_t a, size_t b);

}  // namespace kiln::opdef
