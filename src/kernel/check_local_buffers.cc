// The stack budget of a kernel's local buffers, checked after lowering so that a lowering that
// forgets to tile is a compile-time bug report, never a heap allocation at run time.
#include "kiln/kernel/lower.h"
#include "kiln/kernel/schedule.h"
#include "kiln/support/error.h"
#include "kiln/tir/functor.h"

namespace kiln::kernel {
namespace {

class Usage : public tir::Visitor {
 public:
  int64_t total = 0;
  const tir::BufferNode* largest = nullptr;
  int64_t largestBytes = 0;

 protected:
  void visitAllocate(const tir::StmtNode& s) override {
    int64_t bytes = s.buffer->numel() * static_cast<int64_t>(s.buffer->dtype.bytes());
    total += bytes;
    if (largest == nullptr || bytes > largestBytes) {
      largest = s.buffer.get();
      largestBytes = bytes;
    }
    tir::Visitor::visitAllocate(s);
  }
};

}  // namespace

void checkLocalBuffers(const tir::PrimFunc& f) {
  Usage u;
  u.visitStmt(f.body);
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
