// Running a few independent, long tasks at once and failing like a plain sequential loop would.
#pragma once

#include <functional>
#include <vector>

namespace kiln::codegen {

// Runs every task to completion: when CONCURRENTLY, each but the last on a thread of its own and
// the last on the calling thread; otherwise all in order on the calling thread. Then rethrows the
// exception of the lowest-numbered task that threw, unchanged (a kiln::Error stays one).
void runConcurrently(const std::vector<std::function<void()>>& tasks, bool concurrently);

}  // namespace kiln::codegen
