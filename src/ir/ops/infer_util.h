// Checks and shape arithmetic shared by the ops' type inference, with errors that name the node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/ir/graph.h"
#include "kiln/ir/op_registry.h"
#include "kiln/opdef/op_view.h"
#include "kiln/support/error.h"

namespace kiln::ir::ops {

template <typename... Args>
[[noreturn]] void fail(const Node& node, Args&&... args) {
  throw Error(strCat(nodeLabel(node), ": ", std::forward<Args>(args)...));
}

using opdef::listStr;  // "[1,2,3]"

bool hasInput(const Node& node, size_t i);
// The type of required input I; WHAT names it in the error when it is omitted ("W").
const TensorType& inputType(const Node& node, size_t i, const char* what = "");
// Sets output I when the node has it (optional outputs may be absent).
void setOutput(Node& node, size_t i, TensorType type);
void requireOutputsAtMost(const Node& node, size_t n, const char* why);

bool isFloatType(DataType t);  // float16/32/64, bfloat16
bool isSignedIntType(DataType t);
bool isIntegerType(DataType t);  // signed or unsigned
void requireFloat(const Node& node, size_t i);
void requireFloatOrSignedInt(const Node& node, size_t i);
void requireNumeric(const Node& node, size_t i);    // anything but bool
void requireIndexType(const Node& node, size_t i);  // int32 or int64
void requireSameDtype(const Node& node, size_t i, size_t j);
void requireRankAtLeast(const Node& node, size_t i, int rank, const char* why);

// AXIS in [-rank, rank-1] (or [-rank, rank] when INCLUSIVE) -> [0, rank).
int64_t normalizeAxis(const Node& node, int64_t axis, int64_t rank, const char* what = "axis",
                      bool inclusive = false);

// Multidirectional (numpy) broadcasting, by src/opdef's rule; fails naming both shapes.
opdef::DimList broadcastShapes(const Node& node, const opdef::DimList& a, const opdef::DimList& b);
// numpy matmul's output shape of A @ B (rank-1 operands promoted and dropped again); fails naming
// both when the inner dims differ or the batch dims do not broadcast.
opdef::DimList matmulShape(const Node& node, size_t a,
                           size_t b);  // inputs A and B, by src/opdef's rule
// Whether FROM broadcasts to TO without changing TO (Gemm's C).
bool broadcastsTo(const Shape& from, const Shape& to);

// The elements of an integer constant, or nullopt when V is absent or not a constant.
std::optional<std::vector<int64_t>> constantInts(const Value* v);
}  // namespace kiln::ir::ops
