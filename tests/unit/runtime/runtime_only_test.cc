// Checks that the runtime stays free of compiler dependencies: a process that links only
// libkiln_runtime must not have LLVM, protobuf or ONNX mapped.
#include <fstream>
#include <string>

#include "kiln/runtime/module.h"
#include "test_util.h"

namespace kiln::runtime {
namespace {

TEST(RuntimeOnly, NoCompilerLibrariesAreLoaded) {
  // Reference the runtime so it is certainly linked and loaded.
  EXPECT_THROW(loadModule("/nonexistent/kiln.so"), Error);
  std::ifstream maps("/proc/self/maps");
  ASSERT_TRUE(maps.good());
  std::string line;
  bool sawRuntime = false;
  while (std::getline(maps, line)) {
    EXPECT_FALSE(test::contains(line, "libLLVM")) << line;
    EXPECT_FALSE(test::contains(line, "libprotobuf")) << line;
    EXPECT_FALSE(test::contains(line, "libonnx")) << line;
    if (test::contains(line, "libkiln_runtime")) sawRuntime = true;
  }
  EXPECT_TRUE(sawRuntime);
}

}  // namespace
}  // namespace kiln::runtime
