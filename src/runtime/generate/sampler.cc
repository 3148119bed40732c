// Picking the next token from a row of logits: greedy, or drawn after temperature, top-k and
// top-p (nucleus) cuts, from a seeded generator whose draws are the same on every platform.
#include <algorithm>
#include <cmath>

#include "kiln/runtime/generate.h"
#include "kiln/support/error.h"

namespace kiln::runtime {

Sampler::Sampler(const SamplingOptions& options, int64_t vocab)
    : options_(options), vocab_(vocab), state_(options.seed) {
  if (vocab < 1)
    throw Error(strCat("the logits have ", vocab, " entries per token; expected >= 1"));
  if (options.topK < 0) throw Error(strCat("top-k is ", options.topK, "; expected >= 0"));
  if (!(options.temperature > 0) || !std::isfinite(options.temperature)) {
    throw Error(strCat("temperature is ", options.temperature, "; expected a number > 0"));
  }
  if (!(options.topP > 0 && options.topP <= 1)) {
    throw Error(strCat("top-p is ", options.topP, "; expected a number in (0, 1]"));
  }
  if (!options.greedy) candidates_.reserve(static_cast<size_t>(vocab));
}

// splitmix64: a fixed sequence for a seed, independent of the standard library.
double Sampler::uniform() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

int64_t Sampler::next(const float* logits) {
  if (options_.greedy) {
    return std::max_element(logits, logits + vocab_) - logits;  // the first of equal maxima
  }
  candidates_.clear();
  for (int64_t i = 0; i < vocab_; ++i) candidates_.emplace_back(logits[i], i);
  auto higher = [](const auto& a, const auto& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  };
  size_t k = options_.topK == 0 ? candidates_.size()
                                : std::min(candidates_.size(), static_cast<size_t>(options_.topK));
  std::partial_sort(candidates_.begin(), candidates_.begin() + static_cast<ptrdiff_t>(k),
                    candidates_.end(), higher);
  candidates_.resize(k);
  // Probabilities in place of the logits, scaled by the temperature.
  double top = candidates_.front().first, total = 0;
  for (auto& c : candidates_) {
    c.first = static_cast<float>(std::exp((c.first - top) / options_.temperature));
    total += c.first;
  }
  if (options_.topP < 1) {
    double mass = 0;
    size_t keep = 0;
    while (keep < candidates_.size() && mass < options_.topP * total) {
      mass += candidates_[keep++].first;
    }
    candidates_.resize(std::max<size_t>(keep, 1));
    total = mass > 0 ? mass : candidates_.front().first;
  }
  double target = uniform() * total;
  for (const auto& c : candidates_) {
    target -= c.first;
    if (target < 0) return c.second;
  }
  return candidates_.back().second;  // rounding left TARGET a hair above the sum
}

}  // namespace kiln::runtime
