// partition: hands chains of nodes to an offload backend. A backend claims chains through its
// patterns; each claimed chain is compiled by the backend (into a payload its runtime runs, or an
// object linked into the artifact) and replaced by one kiln.Offload node (src/ir/ops/offload.cc).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::transform {

// One element of a chain pattern: any of OPS, possibly absent.
struct ChainElement {
  std::vector<std::string> ops;
  bool optional = false;
};

// "Conv Add? Relu", "MatMul|Gemm Relu?": op types producer first, separated by spaces; '|'
// separates alternatives, a trailing '?' marks an element that may be absent. Throws kiln::Error
// naming TEXT when it is empty, has an empty alternative or every element is optional.
std::vector<ChainElement> parseChain(const std::string& text);

// A matched chain, producer first: node i+1 reads the single output of node i, which nothing else
// reads. ARGS are the partition's inputs (every present input of every node not produced inside
// the chain, node by node, input by input) then its output (the last node's); ARG_INDEX gives,
// per node and input (flattened), the input's position in ARGS or -1.
struct ChainMatch {
  std::vector<const ir::Node*> nodes;
  std::vector<const ir::Value*> args;
  std::vector<int32_t> argIndex;
  std::string pattern;
};

struct PartitionPattern {
  std::string name;
  std::vector<ChainElement> chain;
  std::function<bool(const ChainMatch&)> accept;  // empty: every match is claimed
};

// What a backend made of a claimed chain: a payload its runtime runs, or, when ENTRY is set, a
// relocatable object whose function ENTRY is the kernel, linked into the artifact.
struct CompiledChain {
  std::string code;
  std::string entry;
};

struct PartitionBackend {
  std::string name;
  std::vector<PartitionPattern> patterns;  // tried in order at every node
  // Compiles a claimed match; throws kiln::Error when the backend cannot.
  std::function<CompiledChain(const ChainMatch&)> compile;
};

// What one kiln.Offload node replaced.
struct OffloadRecord {
  std::string backend;
  std::string pattern;
  std::vector<std::string> nodes;  // the names of the nodes it replaced, producer first
  std::vector<std::string> ops;    // their op types
  bool linked = false;             // compiled to an object linked into the artifact
};

// Partitions GRAPH for BACKEND: at every node in topological order not claimed yet, the patterns
// in order, each trying its longest chain first; the first chain a pattern accepts is claimed.
// Returns the offloads made, in graph order. Throws kiln::Error naming the backend and the nodes
// when a claimed chain fails to compile.
std::vector<OffloadRecord> partitionGraph(ir::Graph& graph, const PartitionBackend& backend);

}  // namespace kiln::transform
