// The stack budget of a kernel's local buffers, checked after lowering so that a lowering that
// forgets to tile is a compile-time bug report, never a heap allocation at run time.
#include "kiln/kernel/lower.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

struct Usage {
  int64_t total = 0;
  const BufferNode* largest = nullptr;
  int64_t largestBytes = 0;
};

int64_t bytesOf(const BufferNode& b) { return b.numel() * static_cast<int64_t>(b.dtype.bytes()); }

void visit(const Stmt& s, Usage& u) {
  if (s == nullptr) return;
  if (s->kind == StmtKind::kAllocate && s->buffer != nullptr) {
    int64_t bytes = bytesOf(*s->buffer);
    u.total += bytes;
    if (u.largest == nullptr || bytes > u.largestBytes) {
      u.largest = s->buffer.get();
      u.largestBytes = bytes;
    }
  }
  visit(s->body, u);
  visit(s->elseBody, u);
  for (const Stmt& c : s->seq) visit(c, u);
}

}  // namespace

void checkLocalBuffers(const PrimFunc& f) {
  Usage u;
  visit(f.body, u);
  if (u.largest != nullptr && u.largestBytes > kMaxLocalBufferBytes) {
    throw InternalError(strCat("kernel ", f.name, ": local buffer '", u.largest->name, "' holds ",
                               u.largestBytes, " bytes, more than kMaxLocalBufferBytes (",
                               kMaxLocalBufferBytes,
                               "); its lowering must tile it so it stays on the stack"));
  }
  if (u.total > kMaxLocalBytesPerKernel) {
    throw InternalError(strCat("kernel ", f.name, ": its local buffers hold ", u.total,
                               " bytes together, more than kMaxLocalBytesPerKernel (",
                               kMaxLocalBytesPerKernel,
                               "); its lowering must tile them so they stay on the stack"));
  }
}

}  // namespace kiln::kernel
