// The generation loop: a decoder compiled with bounded symbolic sizes (kiln compile --dim-bounds)
// runs its prompt once (prefill), then one step per new token over its key/value cache, each
// step's present keys and values fed back as the next step's past. Token ids in, token ids out:
// tokenisation belongs to the caller.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kiln/runtime/module.h"
#include "kiln/runtime/ndarray.h"
#include "kiln/support/json.h"

namespace kiln::runtime {

// How the loop drives a decoder, read from its inputs' and outputs' names and shapes:
// - the token input: `input_ids`, else the one integer input of rank 2 ([batch, sequence]);
// - the logits output: `logits`, else output 0; [batch, sequence, vocab] or [batch, vocab],
// float32;
// - cache pairs: every input whose name holds "past" (past_key_values.0.key, past_key_0, ...) and
//   the output named the same with "present" for "past_key_values" or "past"; the cache axis is
//   the input's free dimension other than the batch axis 0;
// - optional `attention_mask` ([batch, past + sequence], all ones) and `position_ids`
//   ([batch, sequence], counting from the cache's length).
// Any other input is an error naming it, since the loop could not know what to give it.
struct CachePair {
  int64_t input = -1, output = -1;  // positions among the model's inputs / outputs
  std::string inputName, outputName;
  int64_t axis = -1;  // the cache (sequence) axis
  Shape emptyShape;   // the input's shape with no token cached (batch 1, cache axis 0)
  DataType dtype;
  int64_t capacity = -1;  // the most tokens the input may hold (its bound), -1 when unbounded
};

struct DecoderInterface {
  int64_t tokens = -1, logits = -1;  // input and output positions
  int64_t attentionMask = -1, positionIds = -1;
  DataType tokenType, maskType, positionType;
  int64_t maxSequence = -1;  // the most tokens one run takes (the bound of the token input's dim)
  Shape stepLogits;          // the logits' shape for one token of one sequence (free dims 1)
  std::vector<CachePair> cache;
  std::string describe() const;  // one line per role, for `kiln generate --verbose`
};

// Reads the roles from an executor's get_input_info() and get_output_info(); kiln::Error naming
// what is missing or unexpected.
DecoderInterface findDecoderInterface(const Json& inputInfo, const Json& outputInfo);

struct SamplingOptions {
  bool greedy = true;        // the most likely token (the lowest id on a tie); else draw one
  int64_t topK = 0;          // >= 0: draw among the K most likely tokens; 0: among all
  double temperature = 1.0;  // > 0; divides the logits before drawing
  double topP = 1.0;         // (0, 1]: draw among the fewest likely tokens whose mass reaches P
  uint64_t seed = 0;         // the same seed, model and prompt give the same tokens everywhere
};

// Picks each next token from a row of logits; holds its scratch, so picking allocates nothing.
class Sampler {
 public:
  // kiln::Error for options out of range.
  Sampler(const SamplingOptions& options, int64_t vocab);
  int64_t next(const float* logits);

 private:
  double uniform();  // [0, 1), from 53 random bits: the same on every platform
  SamplingOptions options_;
  int64_t vocab_;
  uint64_t state_;
  std::vector<std::pair<float, int64_t>> candidates_;
};

struct GenerateOptions {
  int64_t maxNewTokens = 32;  // >= 1
  SamplingOptions sampling;
  std::vector<int64_t> stopIds;  // generation ends after producing any of these
  // Called with each token as it is picked (after its step's time is taken).
  std::function<void(int64_t)> onToken;
};

struct GenerateResult {
  std::vector<int64_t> tokens;  // the new tokens, without the prompt
  int64_t promptTokens = 0;
  double prefillMs = 0;        // the prompt's run and the first token's pick: time to first token
  std::vector<double> stepMs;  // each further token: its inputs, run, and pick
  bool stopped = false;        // ended on one of the stop ids
  double prefillTokensPerSecond() const;
  double decodeTokensPerSecond() const;  // 0 without decode steps
};

// The text `kiln generate` prints: tokens/s of prefill and decode, time to first token, and the
// per-token latency's p50 and p99.
std::string formatGenerateReport(const GenerateResult& result);
// {"prompt_tokens", "new_tokens", "tokens", "stopped", "prefill_ms", "prefill_tokens_per_s",
//  "time_to_first_token_ms", "decode_tokens_per_s", "token_latency_ms": {timing summary}}.
Json generateReportJson(const GenerateResult& result);

// The loop over one executor (local or a session's): created from a decoder's executor module,
// it keeps the interface and the buffers it feeds between calls. A decode step only writes the
// values and sizes of arrays made before the prompt runs, and each cache's present becomes its
// past inside the executor, so on a local executor a decode step allocates nothing.
class Generator {
 public:
  explicit Generator(Module executor);
  const DecoderInterface& decoder() const { return decoder_; }
  // Runs PROMPT (kiln::Error when empty, longer than a run takes, or when prompt and new tokens
  // would overflow the cache's bound) and then up to OPTIONS.maxNewTokens - 1 decode steps.
  GenerateResult generate(const std::vector<int64_t>& prompt, const GenerateOptions& options);

 private:
  void checkFits(int64_t promptLength, int64_t maxNewTokens) const;
  // Runs the prompt after an empty cache; returns the last row's logits.
  const float* prefill(const std::vector<int64_t>& prompt);
  // The arrays and argument lists of the decode steps, for caches of up to MAX_CACHED tokens.
  void prepareDecode(int64_t maxCached);
  // Runs TOKEN after PAST cached tokens (the last run's presents); returns its logits.
  const float* decode(int64_t token, int64_t past);

  Module exec_;
  // carry_: set_input_from_output, which gives each past the last run's present inside the
  // executor (in place for a cache compiled with cache-in-place).
  PackedFunc setInput_, run_, getOutput_, carry_;
  DecoderInterface decoder_;
  NDArray logits_;  // the last run's logits
  // A decode step's inputs and the arguments that pass them.
  NDArray token_, position_, mask_, stepLogits_;
  Shape maskShape_{1, 0};
  Args tokenArgs_, positionArgs_, maskArgs_, logitsArgs_;
  std::vector<Args> carryArgs_;
};

}  // namespace kiln::runtime
