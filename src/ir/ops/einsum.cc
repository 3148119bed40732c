// Type inference of Einsum (executed by the runtime): the output's dims are the sizes of the
// labels it keeps, given after "->" or, implicitly, the broadcast "..." dims and then the labels
// that occur once, in alphabetical order.
#include <cctype>
#include <map>

#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

// TERM's labels for an input of RANK dims; "..." becomes -1, -2, ... numbered from the right.
std::vector<int> labelsOf(const Node& node, const std::string& term, int64_t rank) {
  std::vector<int> out;
  int64_t letters = 0;
  for (char c : term) letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term.compare(i, 3, "...") == 0) {
      int64_t n = rank - letters;
      if (n < 0) fail(node, "term '", term, "' names more dims than its input has (", rank, ")");
      for (int64_t k = n; k > 0; --k) out.push_back(static_cast<int>(-k));
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(term[i]))) {
      out.push_back(static_cast<unsigned char>(term[i]));
    } else if (term[i] != ' ') {
      fail(node, "equation term '", term, "' has '", std::string(1, term[i]),
           "'; expected letters and ...");
    }
  }
  if (static_cast<int64_t>(out.size()) != rank) {
    fail(node, "term '", term, "' names ", out.size(), " dims; its input has ", rank);
  }
  return out;
}

void inferEinsum(Node& node) {
  std::string eq = node.attrs.getString("equation", "");
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != node.inputs.size()) {
    fail(node, "equation '", eq, "' has ", terms.size(), " terms for ", node.inputs.size(),
         " inputs");
  }
  std::map<int, int64_t> size;
  std::map<int, int> count;
  int ellipsis = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const TensorType& t = inputType(node, i);
    requireSameDtype(node, 0, i);
    std::vector<int> labels = labelsOf(node, terms[i], t.rank());
    for (size_t d = 0; d < labels.size(); ++d) {
      int l = labels[d];
      ellipsis = std::max(ellipsis, -std::min(l, 0));
      ++count[l];
      auto it = size.find(l);
      if (it == size.end() || it->second == 1) {
        size[l] = t.shape[d];
      } else if (t.shape[d] != it->second && t.shape[d] != 1) {
        fail(node, "label sizes disagree in '", eq, "': ", it->second, " and ", t.shape[d]);
      }
    }
  }
  Shape out;
  if (arrow != std::string::npos) {
    std::string rhs = eq.substr(arrow + 2);
    int64_t letters = 0;
    for (char c : rhs) letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
    bool dots = rhs.find("...") != std::string::npos;
    for (int l : labelsOf(node, rhs, letters + (dots ? ellipsis : 0))) {
      if (!size.count(l)) fail(node, "output label of '", eq, "' is in no input");
      out.push_back(size[l]);
    }
  } else {
    for (int k = ellipsis; k > 0; --k) out.push_back(size[-k]);
    for (const auto& [l, c] : count) {
      if (l > 0 && c == 1) out.push_back(size[l]);
    }
  }
  setOutput(node, 0, {inputType(node, 0).dtype, out});
}

}  // namespace

void registerEinsumOps(const OpAdder& add) {
  add({.name = "Einsum",
       .minInputs = 1,
       .maxInputs = kVariadicInputs,
       .sinceVersion = 12,
       .inferTypes = inferEinsum});
}

}  // namespace kiln::ir::ops
