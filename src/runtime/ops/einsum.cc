// Einsum: the sum over the equation's labels that the output does not keep of the product of the
// inputs' elements, in double; repeated labels within an input take its diagonal, and "..."
// stands for broadcast dims.
#include <cctype>
#include <map>

#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

// Labels are letters; the dims under "..." get labels 256, 257, ... from the right.
struct Term {
  std::vector<int> labels;
};

Term parseTerm(const RuntimeOpContext& ctx, const std::string& text, int64_t rank, int& ellipsis) {
  Term t;
  size_t dots = text.find("...");
  int64_t letters = 0;
  for (char c : text) letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (i == dots) {
      int64_t n = rank < 0 ? ellipsis : rank - letters;
      if (n < 0) fail(ctx, "term '", text, "' has more labels than its input has dims");
      if (rank >= 0) ellipsis = std::max<int>(ellipsis, static_cast<int>(n));
      // Numbered from the left here; runEinsum aligns the inputs' ellipses on the right.
      for (int64_t k = 0; k < n; ++k) t.labels.push_back(256 + static_cast<int>(k));
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      t.labels.push_back(static_cast<unsigned char>(c));
    } else if (c != ' ') {
      fail(ctx, "equation term '", text, "' has '", std::string(1, c),
           "'; expected letters and ...");
    }
  }
  if (rank >= 0 && static_cast<int64_t>(t.labels.size()) != rank) {
    fail(ctx, "term '", text, "' names ", t.labels.size(), " dims; its input has ", rank);
  }
  return t;
}

}  // namespace

void runEinsum(RuntimeOpContext& ctx) {
  std::string eq = attrString(ctx, "equation", "");
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ctx.numInputs()) {
    fail(ctx, "equation '", eq, "' has ", terms.size(), " terms for ", ctx.numInputs(), " inputs");
  }
  int ellipsis = 0;
  std::vector<Term> ins;
  std::map<int, int64_t> size;
  for (size_t i = 0; i < terms.size(); ++i) {
    const NDArray& x = ctx.input(i);
    ins.push_back(parseTerm(ctx, terms[i], x.ndim(), ellipsis));
  }
  for (size_t i = 0; i < ins.size(); ++i) {  // ellipsis labels are numbered from the right
    const NDArray& x = ctx.input(i);
    int64_t n = 0;
    for (int l : ins[i].labels) n += l >= 256 ? 1 : 0;
    for (int& l : ins[i].labels) l = l >= 256 ? l + static_cast<int>(ellipsis - n) : l;
    for (size_t d = 0; d < ins[i].labels.size(); ++d) {
      int l = ins[i].labels[d];
      int64_t s = x.shape()[d];
      auto it = size.find(l);
      if (it == size.end() || it->second == 1) {
        size[l] = s;
      } else if (s != it->second && s != 1) {
        fail(ctx, "label sizes disagree: ", it->second, " and ", s, " in '", eq, "'");
      }
    }
  }
  Term out;
  if (arrow != std::string::npos) {
    out = parseTerm(ctx, eq.substr(arrow + 2), -1, ellipsis);
  } else {  // implicit: the ellipsis dims, then the letters that occur once, sorted
    std::map<int, int> count;
    for (const Term& t : ins) {
      for (int l : t.labels) ++count[l];
    }
    for (int k = 0; k < ellipsis; ++k) out.labels.push_back(256 + k);
    for (const auto& [l, c] : count) {
      if (l < 256 && c == 1) out.labels.push_back(l);
    }
  }
  std::vector<int> all;
  all.reserve(size.size());
  for (const auto& [l, s] : size) all.push_back(l);
  Shape outShape;
  for (int l : out.labels) {
    if (!size.count(l)) fail(ctx, "output label '", static_cast<char>(l), "' is in no input");
    outShape.push_back(size[l]);
  }
  NDArray y = ctx.output(0, outShape);
  std::vector<std::vector<double>> values;
  values.reserve(ins.size());
  for (size_t i = 0; i < ins.size(); ++i) values.push_back(toDoubles(ctx, ctx.input(i)));
  // Odometer over every label; each combination adds one product to its output element.
  std::map<int, size_t> slot;
  for (size_t k = 0; k < all.size(); ++k) slot[all[k]] = k;
  std::vector<int64_t> at(all.size(), 0);
  std::vector<double> acc(static_cast<size_t>(y.numel()), 0.0);
  int64_t combos = 1;
  for (int l : all) combos *= size[l];
  for (int64_t c = 0; c < combos; ++c) {
    double prod = 1;
    for (size_t i = 0; i < ins.size() && prod != 0; ++i) {
      const Shape& s = ctx.input(i).shape();
      int64_t off = 0;
      for (size_t d = 0; d < ins[i].labels.size(); ++d) {
        int64_t idx = s[d] == 1 ? 0 : at[slot[ins[i].labels[d]]];
        off = off * s[d] + idx;
      }
      prod *= values[i][static_cast<size_t>(off)];
    }
    int64_t o = 0;
    for (size_t d = 0; d < out.labels.size(); ++d) o = o * outShape[d] + at[slot[out.labels[d]]];
    acc[static_cast<size_t>(o)] += prod;
    for (size_t k = all.size(); k-- > 0;) {
      if (++at[k] < size[all[k]]) break;
      at[k] = 0;
    }
  }
  storeDoubles(ctx, y, acc);
}

}  // namespace kiln::runtime::ops
