// A count of every heap allocation in the process, so a test can prove a piece of code allocates
// nothing: compare allocationCount() before and after it. Linking allocation_counter.cc into a
// test binary interposes the C allocators for the whole process.
#pragma once

namespace kiln::test {

// Allocations so far (malloc, calloc, realloc, aligned_alloc, memalign, posix_memalign and
// operator new, from any library of the process).
long allocationCount();

}  // namespace kiln::test
