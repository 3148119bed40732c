// Walks a kernel's statements and adds up the bytes of its allocate statements.
#include "local_buffer_usage.h"

#include "kiln/kernel/schedule.h"
#include "kiln/support/error.h"
#include "kiln/tir/functor.h"

namespace kiln::kernel::testing {

using namespace tir;  // NOLINT(google-build-using-namespace)
namespace {

class Walk : public tir::Visitor {
 public:
  explicit Walk(LocalBufferUsage& u) : u_(u) {}

 protected:
  void visitAllocate(const tir::StmtNode& s) override {
    int64_t bytes = 1;
    for (int64_t d : s.buffer->shape) bytes *= d;
    bytes *= static_cast<int64_t>(s.buffer->dtype.bytes());
    u_.totalBytes += bytes;
    if (bytes > u_.largestBytes) {
      u_.largestBytes = bytes;
      u_.largestName = s.buffer->name;
    }
    tir::Visitor::visitAllocate(s);
  }

 private:
  LocalBufferUsage& u_;
};

}  // namespace

LocalBufferUsage localBufferUsage(const tir::PrimFunc& f) {
  LocalBufferUsage u;
  Walk(u).visitStmt(f.body);
  return u;
}

std::string localBufferViolation(const tir::PrimFunc& f) {
  LocalBufferUsage u = localBufferUsage(f);
  if (u.largestBytes > kMaxLocalBufferBytes) {
    return strCat(f.name, ": local buffer ", u.largestName, " holds ", u.largestBytes, " bytes");
  }
  if (u.totalBytes > kMaxLocalBytesPerKernel) {
    return strCat(f.name, ": local buffers hold ", u.totalBytes, " bytes together");
  }
  return "";
}

}  // namespace kiln::kernel::testing
