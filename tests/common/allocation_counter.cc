// Every allocation in the process is counted (allocation_counter.h): the C allocators (malloc,
// calloc, realloc, aligned_alloc, posix_memalign, memalign) are interposed here, so calls from
// anywhere, including the kernels of a dlopen'ed library, reach the counter; operator new goes
// through malloc. Under AddressSanitizer or ThreadSanitizer, which own malloc (replacing it crashes
// them at startup), their allocation hook counts instead.
#include "allocation_counter.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> gAllocations{0};
}  // namespace

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define KILN_TEST_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KILN_TEST_SANITIZER 1
#endif

#ifdef KILN_TEST_SANITIZER
// From <sanitizer/allocator_interface.h>, declared here because GCC ships no such header.
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*mallocHook)(const volatile void*,
                                                                            size_t),
                                                         void (*freeHook)(const volatile void*));
namespace {
void countAllocation(const volatile void*, size_t) { ++gAllocations; }
void ignoreFree(const volatile void*) {}  // the sanitizer installs no hooks without a free hook
[[maybe_unused]] const int kHooksInstalled =
    __sanitizer_install_malloc_and_free_hooks(countAllocation, ignoreFree);
}  // namespace
#else
#include <cerrno>
// glibc's allocator under its internal names, which it exports for replacements like this one.
extern "C" {
// NOLINTBEGIN(bugprone-reserved-identifier,readability-identifier-naming): glibc's own names.
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* p);
// NOLINTEND(bugprone-reserved-identifier,readability-identifier-naming)

void* malloc(size_t size) noexcept {
  ++gAllocations;
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) noexcept {
  ++gAllocations;
  return __libc_calloc(count, size);
}
void* realloc(void* p, size_t size) noexcept {
  ++gAllocations;
  return __libc_realloc(p, size);
}
void* aligned_alloc(size_t alignment, size_t size) noexcept {
  ++gAllocations;
  return __libc_memalign(alignment, size);
}
void* memalign(size_t alignment, size_t size) noexcept {
  ++gAllocations;
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) noexcept {
  ++gAllocations;
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
void free(void* p) noexcept { __libc_free(p); }
}
// operator new through the counted malloc. Not under a sanitizer: its own operator new and
// delete must pair with each other (a nothrow new freed by a replaced delete is a mismatch).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"  // malloc/free pair up by design here
void* operator new(size_t size) {
  if (void* p = std::malloc(size ? size : 1)) return p;  // counted by malloc
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop
#endif

long kiln::test::allocationCount() { return gAllocations.load(); }
