// partition: matches chain patterns for one backend, then replaces every claimed chain by one
// kiln.Offload node. Matching reads the graph only; rewriting starts once every claim is made, so
// claims never see a half-rewritten graph.
#include "kiln/transform/partition.h"

#include <algorithm>
#include <map>
#include <set>

#include "kiln/ir/op_registry.h"
#include "kiln/support/base64.h"
#include "kiln/support/error.h"
#include "kiln/support/split.h"

namespace kiln::transform {
namespace {

using ir::Node;
using ir::Value;

struct Claim {
  ChainMatch match;
  CompiledChain compiled;
};

class Matcher {
 public:
  Matcher(const ir::Graph& graph, const std::set<const Node*>& claimed)
      : g_(graph), claimed_(claimed) {}

  // Every chain of PATTERN starting at FIRST, longest first (at equal length, the one taking
  // earlier elements first).
  std::vector<std::vector<const Node*>> chains(const std::vector<ChainElement>& pattern,
                                               const Node* first) {
    std::vector<std::vector<const Node*>> found, out;
    std::vector<const Node*> taken;
    extend(pattern, 0, first, taken, found);
    for (size_t length = pattern.size(); length > 0; --length) {
      for (std::vector<const Node*>& chain : found) {
        if (chain.size() == length) out.push_back(std::move(chain));
      }
    }
    return out;
  }

 private:
  const ir::Graph& g_;
  const std::set<const Node*>& claimed_;

  bool takes(const ChainElement& e, const Node* n) const {
    return n != nullptr && claimed_.count(n) == 0 && n->outputs.size() == 1 &&
           std::find(e.ops.begin(), e.ops.end(), n->op) != e.ops.end();
  }

  // The node that alone reads N's output, when the output is not a graph output.
  const Node* soleReader(const Node* n) const {
    const Value* v = n->outputs[0];
    if (g_.isGraphOutput(v)) return nullptr;
    std::vector<Node*> users = g_.users(v);
    std::sort(users.begin(), users.end());
    users.erase(std::unique(users.begin(), users.end()), users.end());
    return users.size() == 1 ? users[0] : nullptr;
  }

  void extend(const std::vector<ChainElement>& pattern, size_t e, const Node* candidate,
              std::vector<const Node*>& taken, std::vector<std::vector<const Node*>>& out) {
    if (e == pattern.size()) {
      if (!taken.empty()) out.push_back(taken);
      return;
    }
    if (takes(pattern[e], candidate)) {
      taken.push_back(candidate);
      extend(pattern, e + 1, soleReader(candidate), taken, out);
      taken.pop_back();
    }
    if (pattern[e].optional) extend(pattern, e + 1, candidate, taken, out);
  }
};

ChainMatch describe(const std::vector<const Node*>& nodes, const std::string& pattern) {
  ChainMatch m;
  m.nodes = nodes;
  m.pattern = pattern;
  std::set<const Value*> inside;
  for (const Node* n : nodes) inside.insert(n->outputs[0]);
  for (const Node* n : nodes) {
    for (const Value* in : n->inputs) {
      if (in == nullptr || inside.count(in) != 0) {
        m.argIndex.push_back(-1);
        continue;
      }
      m.argIndex.push_back(static_cast<int32_t>(m.args.size()));
      m.args.push_back(in);
    }
  }
  m.args.push_back(nodes.back()->outputs[0]);
  return m;
}

std::string nodeList(const std::vector<const Node*>& nodes) {
  std::string out;
  for (const Node* n : nodes) out += strCat(out.empty() ? "" : ", ", n->op, " '", n->name, "'");
  return out;
}

// A rewrite replaces the chain's output value; RENAMED maps replaced values to their successors,
// so that a later claim reading an earlier claim's output finds the value that took its place.
void rewrite(ir::Graph& g, const std::string& backend, const Claim& claim,
             std::map<const Value*, Value*>& renamed) {
  const std::vector<const Node*>& nodes = claim.match.nodes;
  Node* last = const_cast<Node*>(nodes.back());
  const ir::TensorType& type = last->outputs[0]->type;
  ir::Attrs attrs;
  attrs.set("backend", backend);
  attrs.set("pattern", claim.match.pattern);
  attrs.set("payload", base64Encode(claim.compiled.code));
  if (!claim.compiled.entry.empty()) attrs.set("entry", claim.compiled.entry);
  attrs.set("output_dtype", type.dtype.str());
  attrs.set("output_shape", type.shape);
  std::vector<std::string> ops, names;
  for (const Node* n : nodes) {
    ops.push_back(n->op);
    names.push_back(n->name);
  }
  attrs.set("ops", ops);
  attrs.set("nodes", names);
  std::vector<Value*> inputs;
  for (size_t i = 0; i + 1 < claim.match.args.size(); ++i) {
    auto it = renamed.find(claim.match.args[i]);
    inputs.push_back(it != renamed.end() ? it->second : const_cast<Value*>(claim.match.args[i]));
  }
  Node* offload =
      g.insertNode(last, "kiln.Offload", g.uniqueName(last->name + "_offload"), inputs,
                   {g.uniqueName(last->outputs[0]->name + "_offload")}, std::move(attrs));
  ir::inferTypes(*offload);
  renamed[last->outputs[0]] = offload->outputs[0];
  g.replaceNode(last, offload->outputs[0], offload);
  for (size_t i = nodes.size() - 1; i-- > 0;) g.removeNode(const_cast<Node*>(nodes[i]));
}

}  // namespace

std::vector<ChainElement> parseChain(const std::string& text) {
  std::vector<ChainElement> chain;
  for (const std::string& word : splitOn(text, ' ')) {
    if (word.empty()) continue;
    ChainElement e;
    std::string ops = word;
    if (ops.back() == '?') {
      e.optional = true;
      ops.pop_back();
    }
    for (std::string& op : splitOn(ops, '|')) {
      if (op.empty() || op.find('?') != std::string::npos) {
        throw Error(strCat("pattern chain '", text, "' has a malformed element '", word,
                           "'; expected op types separated by '|', optionally ending in '?'"));
      }
      e.ops.push_back(std::move(op));
    }
    chain.push_back(std::move(e));
  }
  if (chain.empty()) throw Error(strCat("pattern chain '", text, "' names no op"));
  bool allOptional =
      std::all_of(chain.begin(), chain.end(), [](const ChainElement& e) { return e.optional; });
  if (allOptional) {
    throw Error(strCat("pattern chain '", text,
                       "' has only optional elements; one must be "
                       "required"));
  }
  return chain;
}

std::vector<OffloadRecord> partitionGraph(ir::Graph& graph, const PartitionBackend& backend) {
  std::set<const Node*> claimed;
  std::vector<Claim> claims;
  Matcher matcher(graph, claimed);
  for (const Node* n : graph.nodes()) {
    for (const PartitionPattern& p : backend.patterns) {
      if (claimed.count(n) != 0) break;
      for (const std::vector<const Node*>& nodes : matcher.chains(p.chain, n)) {
        ChainMatch match = describe(nodes, p.name);
        if (p.accept && !p.accept(match)) continue;
        for (const Node* c : nodes) claimed.insert(c);
        claims.push_back({std::move(match), {}});
        break;
      }
    }
  }
  std::vector<OffloadRecord> records;
  for (Claim& claim : claims) {
    try {
      claim.compiled = backend.compile(claim.match);
    } catch (const Error& e) {
      throw Error(strCat("backend '", backend.name, "' failed to compile ",
                         nodeList(claim.match.nodes), ": ", e.what()));
    }
    OffloadRecord r{backend.name, claim.match.pattern, {}, {}, !claim.compiled.entry.empty()};
    for (const Node* c : claim.match.nodes) {
      r.nodes.push_back(c->name);
      r.ops.push_back(c->op);
    }
    records.push_back(std::move(r));
  }
  // Claims are in graph order, so a claim's producers are rewritten before it.
  std::map<const Value*, Value*> renamed;
  for (const Claim& claim : claims) rewrite(graph, backend.name, claim, renamed);
  return records;
}

}  // namespace kiln::transform
