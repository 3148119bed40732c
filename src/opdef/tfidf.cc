// TfIdfVectorizer: the n-gram settings checked and the output dims.
#include "kiln/opdef/tfidf.h"

#include <algorithm>

namespace kiln::opdef {

TfIdfSpec tfIdfSpec(const OpView& op) {
  Dims x = op.inputShape(0);
  if (x.size() != 1 && x.size() != 2)
    fail(op, "X is ", op.inputTypeStr(0), "; expected 1-D or 2-D");
  if (op.hasAttr("pool_strings")) fail(op, "pool_strings needs string tokens; kiln has none");
  TfIdfSpec s;
  s.mode = op.attrString("mode", "TF");
  if (s.mode != "TF" && s.mode != "IDF" && s.mode != "TFIDF") {
    fail(op, "mode '", s.mode, "' is not known; expected TF, IDF or TFIDF");
  }
  s.minN = op.attrInt("min_gram_length", 1);
  s.maxN = op.attrInt("max_gram_length", 1);
  s.maxSkip = op.attrInt("max_skip_count", 0);
  std::vector<int64_t> counts = op.attrInts("ngram_counts");
  if (s.minN < 1 || s.maxN < s.minN || static_cast<int64_t>(counts.size()) < s.maxN) {
    fail(op, "min_gram_length ", s.minN, " and max_gram_length ", s.maxN,
         " do not fit ngram_counts ", listStr(counts));
  }
  if (s.maxSkip < 0) fail(op, "max_skip_count is ", s.maxSkip, "; expected >= 0");
  for (int64_t i : op.attrInts("ngram_indexes")) {
    if (i < 0) fail(op, "ngram_indexes has ", i, "; expected indexes >= 0");
    s.slots = std::max(s.slots, i + 1);
  }
  s.out = x.size() == 2 ? Dims{x[0], s.slots} : Dims{s.slots};
  return s;
}

}  // namespace kiln::opdef
