// Buffer construction: the one place that checks a buffer's element type and shape.
#include "kiln/tir/buffer.h"

#include <utility>

#include "kiln/support/error.h"

namespace kiln::tir {

int64_t BufferNode::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Buffer makeBuffer(std::string name, DataType dtype, std::vector<int64_t> shape) {
  KILN_CHECK(!name.empty(), "a buffer needs a name");
  KILN_CHECK(dtype.lanes == 1, "buffer ", name, " has vector element type ", dtype.str(),
             "; buffers hold scalars and vector accesses use vector indices");
  for (int64_t d : shape) KILN_CHECK(d >= 0, "buffer ", name, " has a negative dimension");
  auto b = std::make_shared<BufferNode>();
  b->name = std::move(name);
  b->dtype = dtype;
  b->shape = std::move(shape);
  return b;
}

}  // namespace kiln::tir
