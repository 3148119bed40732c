// runPasses verifies between passes, names the pass that broke the graph, and dumps the IR.
#include <unistd.h>

#include <filesystem>

#include "ir_test_util.h"
#include "kiln/ir/parser.h"
#include "kiln/ir/pass.h"
#include "kiln/ir/printer.h"
#include "kiln/support/file.h"

namespace kiln::ir {
namespace {

const char* kText = R"(graph g(%x: float32[2,3]) {
  %a = Relu(%x) : float32[2,3]
  %b = Sigmoid(%a) : float32[2,3]
  return %b
}
)";

std::string internalError(const std::function<void()>& f) {
  try {
    f();
  } catch (const InternalError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InternalError";
  return "";
}

// A pass that replaces Sigmoid by Tanh.
Pass swapPass() {
  return {"swap-sigmoid", [](Graph& g) {
            for (Node* n : std::vector<Node*>(g.nodes())) {
              if (n->op != "Sigmoid") continue;
              Node* t = g.insertNode(n, "Tanh", n->name + "_tanh", {n->inputs[0]}, {""});
              inferTypes(*t);
              g.replaceAllUses(n->outputs[0], t->outputs[0]);
              g.removeNode(n);
            }
          }};
}

TEST(PassManagerTest, RunsInOrderAndDumpsAfterEachPass) {
  std::unique_ptr<Graph> g = parseGraph(kText);
  std::string dir =
      (std::filesystem::temp_directory_path() / ("kiln_ir_dump_" + std::to_string(::getpid())))
          .string();
  std::filesystem::remove_all(dir);
  std::vector<std::string> order;
  std::vector<Pass> passes = {
      {"first", [&](Graph&) { order.push_back("first"); }},
      swapPass(),
  };
  runPasses(*g, passes, dir + "/nested");
  EXPECT_EQ(order, (std::vector<std::string>{"first"}));
  EXPECT_EQ(g->nodes()[1]->op, "Tanh");
  EXPECT_EQ(readTextFile(dir + "/nested/00-input.ir"), kText);
  EXPECT_EQ(readTextFile(dir + "/nested/01-first.ir"), kText);
  EXPECT_EQ(readTextFile(dir + "/nested/02-swap-sigmoid.ir"), printGraph(*g));
  std::filesystem::remove_all(dir);
}

TEST(PassManagerTest, NoDumpWithoutDirectory) {
  std::unique_ptr<Graph> g = parseGraph(kText);
  EXPECT_NO_THROW(runPasses(*g, {swapPass()}, ""));
}

TEST(PassManagerTest, NamesThePassThatBrokeTypes) {
  std::unique_ptr<Graph> g = parseGraph(kText);
  Pass bad = {"bad-types", [](Graph& graph) {
                graph.nodes()[0]->outputs[0]->type = testing::f32({3, 2});
              }};
  std::string e = internalError([&] { runPasses(*g, {swapPass(), bad}, ""); });
  EXPECT_NE(e.find("after pass 'bad-types'"), std::string::npos) << e;
  EXPECT_NE(e.find("has type float32[3,2] but inference gives float32[2,3]"), std::string::npos)
      << e;
}

TEST(PassManagerTest, VerifierCatchesBrokenOrderAndDanglingValues) {
  std::unique_ptr<Graph> g = parseGraph(kText);
  Pass reorder = {"reorder", [](Graph& graph) {
                    // Make the first node read the second node's output: not topological.
                    graph.nodes()[0]->inputs[0] = graph.nodes()[1]->outputs[0];
                  }};
  std::string e = internalError([&] { runPasses(*g, {reorder}, ""); });
  EXPECT_NE(e.find("after pass 'reorder'"), std::string::npos) << e;
  EXPECT_NE(e.find("used before it is defined"), std::string::npos) << e;

  g = parseGraph(kText);
  Graph other;
  Value* foreign = other.addInput("f", testing::f32({2, 3}));
  g->outputs().push_back(foreign);
  e = internalError([&] { verifyGraph(*g); });
  EXPECT_NE(e.find("graph output %f is not defined"), std::string::npos) << e;

  g = parseGraph(kText);
  g->nodes()[1]->outputs[0]->name = "a";
  e = internalError([&] { verifyGraph(*g); });
  EXPECT_NE(e.find("value name %a is used twice"), std::string::npos) << e;
}

TEST(PassManagerTest, InputGraphIsVerifiedFirst) {
  std::unique_ptr<Graph> g = parseGraph(kText);
  g->nodes()[0]->op = "NotAnOp";
  bool ran = false;
  std::string e = internalError([&] { runPasses(*g, {{"p", [&](Graph&) { ran = true; }}}, ""); });
  EXPECT_FALSE(ran);
  EXPECT_NE(e.find("input graph"), std::string::npos) << e;
  EXPECT_NE(e.find("'NotAnOp' is not registered"), std::string::npos) << e;
}

}  // namespace
}  // namespace kiln::ir
