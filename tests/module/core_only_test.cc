// The runtime's core alone: a program that links only libkiln_runtime runs a static-shape model
// without the run-time ops library ever being loaded, runs a model that needs run-time ops by
// loading libkiln_runtime_ops.so from beside the core, and without that library stops with an
// error naming it.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "kiln/driver/compile.h"
#include "kiln/ir/op_registry.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

using runtime::DataType;

// Relu(x) (static shapes) or NonZero(x) (its output size depends on x's values, so the runtime's
// op library computes it), compiled into DIR/NAME.so.
std::string compileModel(const std::string& dir, const std::string& op) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", {DataType::float32(), {2, 3}});
  ir::Node* n = g.addNode(op, op, {x}, {"y"});
  ir::inferTypes(*n);
  g.outputs().push_back(n->outputs[0]);
  std::string path = dir + "/" + op + ".so";
  driver::compileGraph(g, path, {});
  return path;
}

// What core_only_run printed for LIBRARY, with ENV before it on the command line.
std::string runCoreOnly(const std::string& library, const std::string& env = "") {
  std::string command = env + " " + KILN_CORE_ONLY_RUN + " " + library + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr) << command;
  std::string out;
  char buf[512];
  while (pipe && fgets(buf, sizeof buf, pipe)) out += buf;
  if (pipe) pclose(pipe);
  return out;
}

TEST(CoreOnly, AStaticModelRunsWithoutTheOpsLibrary) {
  std::string out = runCoreOnly(compileModel(scratchDir(), "Relu"));
  EXPECT_EQ(out, "ran\nops library loaded: no\n");
}

TEST(CoreOnly, AModelWithRunTimeOpsLoadsTheOpsLibraryFromBesideTheCore) {
  std::string out = runCoreOnly(compileModel(scratchDir(), "NonZero"));
  EXPECT_EQ(out, "ran\nops library loaded: yes\n");
}

TEST(CoreOnly, WithoutTheOpsLibraryTheErrorNamesIt) {
  std::string dir = scratchDir();
  std::string model = compileModel(dir, "NonZero");
  std::filesystem::create_directories(dir + "/core");
  std::filesystem::copy_file(KILN_RUNTIME_CORE, dir + "/core/libkiln_runtime.so");
  std::string out = runCoreOnly(model, "LD_LIBRARY_PATH=" + dir + "/core");
  EXPECT_NE(out.find("error: "), std::string::npos) << out;
  EXPECT_NE(out.find("runs in the runtime's op library libkiln_runtime_ops.so, which is not here"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(dir + "/core/libkiln_runtime_ops.so"), std::string::npos) << out;
}

}  // namespace
}  // namespace kiln::test
