// Walks a kernel's statements and adds up the bytes of its allocate statements.
#include "local_buffer_usage.h"

#include "kiln/kernel/schedule.h"
#include "kiln/support/error.h"

namespace kiln::kernel::testing {
namespace {

void walk(const Stmt& s, LocalBufferUsage& u) {
  if (s == nullptr) return;
  if (s->kind == StmtKind::kAllocate) {
    int64_t bytes = 1;
    for (int64_t d : s->buffer->shape) bytes *= d;
    bytes *= static_cast<int64_t>(s->buffer->dtype.bytes());
    u.totalBytes += bytes;
    if (bytes > u.largestBytes) {
      u.largestBytes = bytes;
      u.largestName = s->buffer->name;
    }
  }
  walk(s->body, u);
  walk(s->elseBody, u);
  for (const Stmt& c : s->seq) walk(c, u);
}

}  // namespace

LocalBufferUsage localBufferUsage(const PrimFunc& f) {
  LocalBufferUsage u;
  walk(f.body, u);
  return u;
}

std::string localBufferViolation(const PrimFunc& f) {
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
