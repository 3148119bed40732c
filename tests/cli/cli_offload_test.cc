// Every in-tree extension through the command line, not only its --help: `kiln compile` with it
// loaded offloads nodes to its backend, `kiln run` with it runs them, and the outputs equal
// kiln's own code's. A backend without patterns (the test extension) offloads nothing and changes
// nothing.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_harness.h"
#include "kiln/support/error.h"

// Shell command lines built with +: readability over the temporaries, in a test.
// NOLINTBEGIN(performance-inefficient-string-concatenation)
namespace kiln::test {
namespace {

// A small CNN with the chains both backends claim (Conv + bias + Relu, a MatMul), its input as an
// .npz, written with onnx and numpy.
constexpr const char* kModel = R"(
import numpy as np, onnx
from onnx import TensorProto, helper, numpy_helper
rng = np.random.RandomState(3)
w1 = numpy_helper.from_array(rng.randn(8, 3, 3, 3).astype(np.float32) * 0.3, "w1")
b1 = numpy_helper.from_array(rng.randn(8).astype(np.float32), "b1")
w2 = numpy_helper.from_array(rng.randn(8, 8, 3, 3).astype(np.float32) * 0.2, "w2")
b2 = numpy_helper.from_array(rng.randn(8).astype(np.float32), "b2")
m = numpy_helper.from_array(rng.randn(8, 5).astype(np.float32), "m")
nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c1"], ["r1"]),
         helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c2"], ["r2"]),
         helper.make_node("GlobalAveragePool", ["r2"], ["p"]),
         helper.make_node("Flatten", ["p"], ["f"]),
         helper.make_node("MatMul", ["f", "m"], ["y"])]
g = helper.make_graph(nodes, "cnn",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 12, 12])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
                      [w1, b1, w2, b2, m])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "cnn.onnx")
np.savez("in.npz", x=rng.rand(1, 3, 12, 12).astype(np.float32))
)";

constexpr const char* kCompare = R"(
import numpy as np, sys
got, want = np.load(sys.argv[1])["y"], np.load("ref.npz")["y"]
err = np.abs(got - want).max() / max(np.abs(want).max(), 1e-30)
print("relative error", err)
sys.exit(0 if err < 1e-4 else 1)
)";

struct Backend {
  std::string name, library;
  bool offloads;
};

std::vector<Backend> backends() {
  std::vector<Backend> all{
      {"vanilla", KILN_VANILLA_EXTENSION, true},
      {"alpha", std::string(KILN_TEST_EXTENSIONS) + "/both/ext_alpha.so", false}};
#ifdef KILN_DNNL_EXTENSION
  all.push_back({"dnnl", KILN_DNNL_EXTENSION, true});
#endif
  return all;
}

TEST(CliOffload, EachExtensionCompilesAndRunsAModelWithKilnsOwnOutputs) {
#ifndef KILN_DNNL_EXTENSION
  ADD_FAILURE() << "the dnnl extension was not built (Debian's libdnnl-dev is missing): it is "
                   "tested here, so install it (scripts/install_deps.sh)";
#endif
  std::string dir = scratchDir();
  runPythonScript(dir, "model", "import os\nos.chdir('" + dir + "')\n" + kModel);
  std::string cd = "cd " + dir + " && ";
  CommandResult r = runShell(cd + KILN_BIN + " compile cnn.onnx -o ref.so --target llvm && " +
                             KILN_BIN + " run ref.so --inputs in.npz --outputs ref.npz");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::ofstream(dir + "/compare.py") << kCompare;
  for (const Backend& b : backends()) {
    std::string ext = " --extension " + b.library;
    std::string so = b.name + ".so", out = b.name + ".npz";
    r = runShell(cd + KILN_BIN + " compile cnn.onnx -o " + so + " --target " + b.name + ",llvm" +
                 ext + " --dump-offloads");
    ASSERT_EQ(r.exitCode, 0) << b.name << "\n" << r.output;
    bool offloaded = r.output.find("default: " + b.name + " [") != std::string::npos;
    CommandResult inspect = runShell(cd + KILN_BIN + " inspect " + so);
    ASSERT_EQ(inspect.exitCode, 0) << inspect.output;
    bool needs = inspect.output.find("backends:  " + b.name) != std::string::npos;
    EXPECT_EQ(needs, b.offloads) << b.name << " offloaded " << (needs ? "" : "no ") << "nodes\n"
                                 << r.output << inspect.output;
    EXPECT_EQ(offloaded, b.offloads) << r.output;
    r = runShell(cd + KILN_BIN + " run " + so + ext + " --inputs in.npz --outputs " + out);
    ASSERT_EQ(r.exitCode, 0) << b.name << "\n" << r.output;
    r = runShell(cd + "/usr/bin/python3 compare.py " + out);
    EXPECT_EQ(r.exitCode, 0) << b.name << " differs from kiln's own code: " << r.output;
    if (b.offloads) {  // without the extension, the artifact names what it needs
      r = runShell(cd + KILN_BIN + " run " + so + " --inputs in.npz");
      EXPECT_NE(r.exitCode, 0) << r.output;
      EXPECT_NE(r.output.find(b.name), std::string::npos) << r.output;
    }
  }
}

}  // namespace
}  // namespace kiln::test
// NOLINTEND(performance-inefficient-string-concatenation)
