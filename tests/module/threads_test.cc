// The runtime's thread contract: one factory may be shared by threads, each running its own
// executor (run under ThreadSanitizer by scripts/sanitize.sh).
#include <gtest/gtest.h>

#include <thread>

#include "kiln/driver/compile.h"
#include "kiln/runtime/module.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

TEST(ModuleThreads, ThreadsShareOneFactoryEachWithItsOwnExecutor) {
  std::string dir = scratchDir();
  Mlp m = randomMlp(4, 64, 96, 10, 5);
  auto g = buildMlp(m, "");
  driver::compileGraph(*g, dir + "/mlp.so", {});
  runtime::Module factory =
      runtime::loadModule(dir + "/mlp.so")["get_factory"]("default").asModule();
  constexpr int kThreads = 4;
  std::vector<double> errors(kThreads, 1.0);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      runtime::Module ex = factory["create"](runtime::Device::cpu()).asModule();
      double worst = 0;
      for (int round = 0; round < 20; ++round) {
        std::vector<float> x = randomVector(static_cast<size_t>(m.batch * m.in), 100 * t + round);
        ex["set_input"](0, toArray(x, {m.batch, m.in}));
        ex["run"]();
        worst = std::max(
            worst, relativeError(toVector(ex["get_output"](0).asNDArray()), referenceMlp(m, x)));
      }
      errors[t] = worst;
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_LT(errors[t], 1e-5) << "thread " << t;
}

}  // namespace
}  // namespace kiln::test
