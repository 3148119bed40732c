// What a generation run reports: throughput of the prompt and of the decode steps, time to the
// first token and the per-token latency's percentiles, as text and as JSON.
#include <sstream>

#include "kiln/runtime/generate.h"
#include "kiln/runtime/timing_stats.h"
#include "kiln/support/error.h"

namespace kiln::runtime {

double GenerateResult::prefillTokensPerSecond() const {
  return prefillMs > 0 ? 1e3 * static_cast<double>(promptTokens) / prefillMs : 0;
}

double GenerateResult::decodeTokensPerSecond() const {
  double total = 0;
  for (double ms : stepMs) total += ms;
  return total > 0 ? 1e3 * static_cast<double>(stepMs.size()) / total : 0;
}

std::string formatGenerateReport(const GenerateResult& r) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(2);
  s << "prompt: " << r.promptTokens << " tokens, generated: " << r.tokens.size() << " tokens"
    << (r.stopped ? " (stopped on a stop id)" : "") << "\n";
  s << "prefill: " << r.prefillTokensPerSecond() << " tokens/s, time to first token " << r.prefillMs
    << " ms\n";
  if (r.stepMs.empty()) {
    s << "decode: no decode steps (one new token)\n";
    return s.str();
  }
  TimingStats t = summarize(r.stepMs);
  s << "decode: " << r.decodeTokensPerSecond() << " tokens/s over " << r.stepMs.size()
    << " steps; per-token latency p50 " << t.median << " ms, p99 " << t.p99 << " ms\n";
  return s.str();
}

Json generateReportJson(const GenerateResult& r) {
  Json j;
  Json tokens = Json::Array{};
  for (int64_t t : r.tokens) tokens.push(Json(t));
  j["tokens"] = std::move(tokens);
  j["prompt_tokens"] = r.promptTokens;
  j["new_tokens"] = static_cast<int64_t>(r.tokens.size());
  j["stopped"] = r.stopped;
  j["prefill_ms"] = r.prefillMs;
  j["time_to_first_token_ms"] = r.prefillMs;
  j["prefill_tokens_per_s"] = r.prefillTokensPerSecond();
  j["decode_tokens_per_s"] = r.decodeTokensPerSecond();
  j["token_latency_ms"] = r.stepMs.empty() ? Json() : timingJson(summarize(r.stepMs));
  return j;
}

}  // namespace kiln::runtime
