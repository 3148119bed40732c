// Einsum's equation parsed against its inputs' shapes.
#include "kiln/opdef/einsum.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace kiln::opdef {
namespace {

int64_t letterCount(const std::string& term) {
  int64_t n = 0;
  for (char c : term) n += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
  return n;
}

// TERM's labels for an operand of RANK dims; "..." stands for the dims its letters leave.
std::vector<int> labelsOf(const OpView& op, const std::string& term, int64_t rank) {
  std::vector<int> out;
  int64_t letters = letterCount(term);
  for (size_t i = 0; i < term.size(); ++i) {
    if (term.compare(i, 3, "...") == 0) {
      int64_t n = rank - letters;
      if (n < 0) fail(op, "term '", term, "' names more dims than its input has (", rank, ")");
      for (int64_t k = n; k > 0; --k) out.push_back(static_cast<int>(-k));
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(term[i]))) {
      out.push_back(static_cast<unsigned char>(term[i]));
    } else if (term[i] != ' ') {
      fail(op, "equation term '", term, "' has '", std::string(1, term[i]),
           "'; expected letters and ...");
    }
  }
  if (static_cast<int64_t>(out.size()) != rank) {
    fail(op, "term '", term, "' names ", out.size(), " dims; its input has ", rank);
  }
  return out;
}

std::vector<std::string> termsOf(const std::string& lhs) {
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return terms;
}

// Records DIM as LABEL's size: sizes of 1 broadcast, unknown sizes defer to known ones.
void noteSize(const OpView& op, const std::string& eq, std::map<int, int64_t>& size, int label,
              int64_t dim) {
  auto it = size.find(label);
  if (it == size.end() || it->second == 1 || it->second == kUnknownDim) {
    if (it == size.end() || dim != 1) size[label] = dim;
  } else if (dim != it->second && dim != 1 && dim != kUnknownDim) {
    fail(op, "label sizes disagree in '", eq, "': ", it->second, " and ", dim);
  }
}

}  // namespace

EinsumSpec parseEinsum(const OpView& op) {
  std::string eq = op.attrString("equation", "");
  size_t arrow = eq.find("->");
  std::vector<std::string> terms = termsOf(eq.substr(0, arrow));
  if (terms.size() != op.numInputs()) {
    fail(op, "equation '", eq, "' has ", terms.size(), " terms for ", op.numInputs(), " inputs");
  }
  EinsumSpec spec;
  std::map<int, int> count;
  int ellipsis = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    Dims shape = op.inputShape(i);
    std::vector<int> labels = labelsOf(op, terms[i], static_cast<int64_t>(shape.size()));
    for (size_t d = 0; d < labels.size(); ++d) {
      ellipsis = std::max(ellipsis, -std::min(labels[d], 0));
      ++count[labels[d]];
      noteSize(op, eq, spec.size, labels[d], shape[d]);
    }
    spec.inputs.push_back(std::move(labels));
  }
  if (arrow != std::string::npos) {
    std::string rhs = eq.substr(arrow + 2);
    bool dots = rhs.find("...") != std::string::npos;
    spec.output = labelsOf(op, rhs, letterCount(rhs) + (dots ? ellipsis : 0));
    for (int l : spec.output) {
      if (!spec.size.count(l)) fail(op, "an output label of '", eq, "' is in no input");
    }
  } else {
    for (int k = ellipsis; k > 0; --k) spec.output.push_back(-k);
    for (const auto& [l, c] : count) {
      if (l > 0 && c == 1) spec.output.push_back(l);
    }
  }
  return spec;
}

Dims EinsumSpec::outputShape() const {
  Dims out;
  for (int l : output) out.push_back(size.at(l));
  return out;
}

}  // namespace kiln::opdef
