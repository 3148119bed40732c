// The rules of TfIdfVectorizer over integer tokens: its attributes checked against each other
// and its output dims (a count per n-gram slot, per row).
#pragma once

#include <string>

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

struct TfIdfSpec {
  std::string mode;  // TF, IDF or TFIDF
  int64_t minN = 1, maxN = 1, maxSkip = 0;
  int64_t slots = 0;  // the output's last dim: the largest ngram_indexes entry + 1
  Dims out;           // [slots] for a 1-D X, [rows, slots] for a 2-D one
};
TfIdfSpec tfIdfSpec(const OpView& op);

}  // namespace kiln::opdef
