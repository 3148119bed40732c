// Wall-clock measurement of repeated calls on a steady clock.
#include "kiln/runtime/time_evaluator.h"

#include <chrono>

#include "kiln/support/error.h"

namespace kiln::runtime {

std::vector<double> timeEvaluate(const PackedFunc& f, const Args& args, int64_t repeat,
                                 int64_t number) {
  if (repeat < 1 || number < 1) {
    throw Error(
        strCat("time evaluator: repeat ", repeat, " and number ", number, "; expected both >= 1"));
  }
  f.callPacked(args);
  std::vector<double> millis;
  millis.reserve(static_cast<size_t>(repeat));
  for (int64_t r = 0; r < repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < number; ++i) f.callPacked(args);
    std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
    millis.push_back(ms.count() / static_cast<double>(number));
  }
  return millis;
}

}  // namespace kiln::runtime
