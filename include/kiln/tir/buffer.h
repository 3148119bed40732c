// Buffers of the loop IR: the flat arrays a kernel reads and writes (its parameters) and the local
// arrays it allocates.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime/data_type.h"

namespace kiln::tir {

using runtime::DataType;

// A flat, compact, row-major array of scalar elements. SHAPE is informational (printing, bounds
// checks); accesses use one flat element index.
struct BufferNode {
  std::string name;
  DataType dtype;  // always one lane: a vector access reads consecutive or gathered elements
  std::vector<int64_t> shape;
  int64_t numel() const;
};
using Buffer = std::shared_ptr<const BufferNode>;

// Throws kiln::InternalError for a vector element type or a negative dimension.
Buffer makeBuffer(std::string name, DataType dtype, std::vector<int64_t> shape);

}  // namespace kiln::tir
