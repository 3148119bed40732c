// TfIdfVectorizer over integer tokens: counts of the pool's n-grams (min_gram_length to
// max_gram_length tokens, taken with up to max_skip_count tokens skipped between neighbours) in
// each row, as TF, IDF (weight where present) or TFIDF (count times weight).
#include "kiln/opdef/tfidf.h"

#include <map>

#include "context_view.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runTfIdfVectorizer(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  std::vector<int64_t> tokens = inputInts(ctx, 0, "X");
  opdef::TfIdfSpec spec = opdef::tfIdfSpec(ContextView(ctx));  // as at compile time
  int64_t rows = x.ndim() == 2 ? x.shape()[0] : 1, cols = x.shape().back();
  int64_t minN = spec.minN, maxN = spec.maxN, maxSkip = spec.maxSkip;
  const std::string& mode = spec.mode;
  std::vector<int64_t> counts = attrInts(ctx, "ngram_counts"),
                       indexes = attrInts(ctx, "ngram_indexes"),
                       pool = attrInts(ctx, "pool_int64s");
  std::vector<double> weights;
  if (hasAttr(ctx, "weights")) {
    for (const Json& w : ctx.attrs().at("weights").asArray()) weights.push_back(w.asDouble());
  }
  // The pool's n-grams of each length N: pool[counts[N-1] .. counts[N]) in groups of N tokens.
  std::map<std::vector<int64_t>, int64_t> slot;
  size_t gram = 0;
  for (size_t n = 1; n <= counts.size(); ++n) {
    auto begin = static_cast<size_t>(counts[n - 1]);
    size_t end = n < counts.size() ? static_cast<size_t>(counts[n]) : pool.size();
    for (size_t at = begin; at + n <= end; at += n, ++gram) {
      if (gram >= indexes.size()) fail(ctx, "ngram_indexes has too few entries for the pool");
      slot[std::vector<int64_t>(pool.begin() + static_cast<std::ptrdiff_t>(at),
                                pool.begin() + static_cast<std::ptrdiff_t>(at + n))] =
          indexes[gram];
    }
  }
  int64_t outputs = spec.slots;
  std::vector<double> y(static_cast<size_t>(rows * outputs), 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t* row = tokens.data() + r * cols;
    for (int64_t start = 0; start < cols; ++start) {
      for (int64_t n = minN; n <= maxN; ++n) {
        // A unigram is the same for every skip: count it once.
        for (int64_t skip = 0; skip <= (n == 1 ? 0 : maxSkip); ++skip) {
          int64_t last = start + (n - 1) * (skip + 1);
          if (last >= cols) break;
          std::vector<int64_t> g;
          for (int64_t k = 0; k < n; ++k) g.push_back(row[start + k * (skip + 1)]);
          auto it = slot.find(g);
          if (it != slot.end()) y[static_cast<size_t>(r * outputs + it->second)] += 1;
        }
      }
    }
  }
  for (size_t e = 0; e < y.size(); ++e) {
    auto i = static_cast<size_t>(static_cast<int64_t>(e) % outputs);
    double w = i < weights.size() ? weights[i] : 1.0;
    if (mode == "IDF") y[e] = y[e] > 0 ? w : 0;
    if (mode == "TFIDF") y[e] *= w;
  }
  NDArray out = ctx.output(0, spec.out);
  for (size_t e = 0; e < y.size(); ++e) out.data<float>()[e] = static_cast<float>(y[e]);
}

}  // namespace kiln::runtime::ops
