// Exceptions must not escape a std::thread (that calls std::terminate), so each task's exception is
// captured where it happens and rethrown on the caller once every task has stopped: the caller
// never unwinds while another thread still uses what the tasks captured by reference.
#include "run_concurrently.h"

#include <exception>
#include <system_error>
#include <thread>

namespace kiln::codegen {

void runConcurrently(const std::vector<std::function<void()>>& tasks, bool concurrently) {
  std::vector<std::exception_ptr> failures(tasks.size());
  auto run = [&](size_t i) {
    try {
      tasks[i]();
    } catch (...) {
      failures[i] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (size_t i = 0; i + 1 < tasks.size(); ++i) {
    if (!concurrently) {
      run(i);
      continue;
    }
    try {
      threads.emplace_back(run, i);
    } catch (const std::system_error&) {
      run(i);  // no thread to be had: the work still gets done, only later
    }
  }
  if (!tasks.empty()) run(tasks.size() - 1);
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
}

}  // namespace kiln::codegen
