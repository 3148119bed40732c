// partition: chain patterns claim the nodes a backend asks for, and only those; each claimed chain
// becomes one kiln.Offload node computing the chain's output from the chain's inputs.
#include "kiln/transform/partition.h"

#include <gtest/gtest.h>

#include "kiln/ir/op_registry.h"
#include "kiln/ir/parser.h"
#include "kiln/ir/printer.h"
#include "kiln/ir/verifier.h"
#include "kiln/support/base64.h"
#include "kiln/support/error.h"

namespace kiln::transform {
namespace {

// Two Conv -> Add -> Relu blocks; the second Relu's input is also a graph output.
const char* kGraph = R"(graph main(%x: float32[1,2,4,4]) {
  %w = const float32[2,2,1,1] [1.0, 2.0, 3.0, 4.0]
  %b = const float32[2] [0.5, -0.5]
  %c1 = Conv(%x, %w, %b) {kernel_shape=[1,1]}
  %a1 = Add(%c1, %x)
  %r1 = Relu(%a1)
  %c2 = Conv(%r1, %w) {kernel_shape=[1,1]}
  %r2 = Relu(%c2)
  %s = Sigmoid(%r2)
  return %s, %c2
})";

std::unique_ptr<ir::Graph> graph() {
  std::unique_ptr<ir::Graph> g = ir::parseGraph(kGraph);
  for (ir::Node* n : g->nodes()) ir::inferTypes(*n);
  return g;
}

// A backend claiming CHAIN, recording what its compile function saw.
struct Recorder {
  std::vector<ChainMatch> compiled;
  PartitionBackend backend(const std::string& chain,
                           std::function<bool(const ChainMatch&)> accept = {}) {
    return {"acc", {{"p", parseChain(chain), std::move(accept)}}, [this](const ChainMatch& m) {
              compiled.push_back(m);
              return CompiledChain{std::string("\x01\x02payload", 9), ""};
            }};
  }
};

std::vector<std::string> ops(const ir::Graph& g) {
  std::vector<std::string> out;
  for (const ir::Node* n : g.nodes()) out.push_back(n->op);
  return out;
}

TEST(Partition, ParsesChains) {
  std::vector<ChainElement> c = parseChain("MatMul|Gemm  Add? Relu");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].ops, (std::vector<std::string>{"MatMul", "Gemm"}));
  EXPECT_FALSE(c[0].optional);
  EXPECT_TRUE(c[1].optional);
  for (const char* bad : {"", "Conv|", "Relu? Add?", "Conv ?"}) {
    EXPECT_THROW(parseChain(bad), Error) << bad;
  }
}

TEST(Partition, ClaimsTheLongestChainAndKeepsWhatOthersRead) {
  auto g = graph();
  Recorder r;
  std::vector<OffloadRecord> records = partitionGraph(*g, r.backend("Conv Add? Relu"));
  // Block 1 (Conv, Add, Relu) is claimed whole; block 2's Conv output is a graph output, so the
  // Conv cannot hand it to the Relu inside a partition.
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].nodes, (std::vector<std::string>{"c1", "a1", "r1"}));
  EXPECT_EQ(records[0].ops, (std::vector<std::string>{"Conv", "Add", "Relu"}));
  EXPECT_EQ(ops(*g), (std::vector<std::string>{"kiln.Offload", "Conv", "Relu", "Sigmoid"}));
  ir::verifyGraph(*g);
  const ir::Node* off = g->nodes()[0];
  EXPECT_EQ(off->attrs.getString("backend", ""), "acc");
  EXPECT_EQ(base64Decode(off->attrs.getString("payload", ""), "payload"),
            std::string("\x01\x02payload", 9));
  EXPECT_EQ(off->outputs[0]->name, "r1");  // the chain's output keeps its name
  EXPECT_EQ(off->outputs[0]->type.str(), "float32[1,2,4,4]");
  // Inputs: x, w, b of the Conv, then x again for the Add (the conv output is internal).
  ASSERT_EQ(off->inputs.size(), 4u);
  EXPECT_EQ(off->inputs[0]->name, "x");
  EXPECT_EQ(off->inputs[3]->name, "x");
  ASSERT_EQ(r.compiled.size(), 1u);
  EXPECT_EQ(r.compiled[0].argIndex, (std::vector<int32_t>{0, 1, 2, -1, 3, -1}));
  EXPECT_EQ(r.compiled[0].args.size(), 5u);
}

TEST(Partition, OptionalElementsMaySkipAndPredicatesMayRefuse) {
  auto g = graph();
  Recorder r;
  // Refusing every chain with an Add leaves only Conv -> Relu chains; block 1's Conv feeds an Add.
  auto noAdd = [](const ChainMatch& m) {
    for (const ir::Node* n : m.nodes) {
      if (n->op == "Add") return false;
    }
    return true;
  };
  EXPECT_TRUE(partitionGraph(*g, r.backend("Conv Add? Relu", noAdd)).empty());
  EXPECT_EQ(ops(*g).size(), 6u);
  std::vector<OffloadRecord> records = partitionGraph(*g, r.backend("Relu Sigmoid?"));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].nodes, (std::vector<std::string>{"r1"}));
  EXPECT_EQ(records[1].nodes, (std::vector<std::string>{"r2", "s"}));
  ir::verifyGraph(*g);
}

TEST(Partition, AClaimMayReadAnEarlierClaimsOutput) {
  std::unique_ptr<ir::Graph> g = ir::parseGraph(R"(graph main(%x: float32[1,2,4,4]) {
  %w = const float32[2,2,1,1] [1.0, 2.0, 3.0, 4.0]
  %c1 = Conv(%x, %w) {kernel_shape=[1,1]}
  %r1 = Relu(%c1)
  %c2 = Conv(%r1, %w) {kernel_shape=[1,1]}
  %r2 = Relu(%c2)
  return %r2
})");
  for (ir::Node* n : g->nodes()) ir::inferTypes(*n);
  Recorder r;
  ASSERT_EQ(partitionGraph(*g, r.backend("Conv Relu")).size(), 2u);
  ir::verifyGraph(*g);
  ASSERT_EQ(ops(*g), (std::vector<std::string>{"kiln.Offload", "kiln.Offload"}));
  EXPECT_EQ(g->nodes()[1]->inputs[0], g->nodes()[0]->outputs[0]);
  EXPECT_EQ(g->outputs()[0], g->nodes()[1]->outputs[0]);
  EXPECT_EQ(g->outputs()[0]->name, "r2");
}

TEST(Partition, CompileFailureNamesBackendAndNodes) {
  auto g = graph();
  PartitionBackend b{
      "acc", {{"p", parseChain("Sigmoid"), {}}}, [](const ChainMatch&) -> CompiledChain {
        throw Error("no room on the chip");
      }};
  try {
    partitionGraph(*g, b);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("backend 'acc' failed to compile Sigmoid 's': no room on the chip"),
              std::string::npos)
        << m;
  }
  EXPECT_EQ(ops(*g).back(), "Sigmoid");  // nothing was rewritten
}

TEST(Partition, OffloadNodesPrintAndParse) {
  auto g = graph();
  Recorder r;
  partitionGraph(*g, r.backend("Conv Add? Relu"));
  std::string text = ir::printGraph(*g);
  std::unique_ptr<ir::Graph> again = ir::parseGraph(text);
  for (ir::Node* n : again->nodes()) ir::inferTypes(*n);
  EXPECT_EQ(ir::printGraph(*again), text);
}

}  // namespace
}  // namespace kiln::transform
