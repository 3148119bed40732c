// The loop itself: prefill with the whole prompt and an empty cache, then one run per new token
// with the previous run's presents as its past (carried inside the executor, never through the
// caller), timed per token.
#include <chrono>

#include "kiln/runtime/generate.h"
#include "kiln/support/error.h"

namespace kiln::runtime {

namespace {

double millisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// Element I of integer tensor A (int64 or int32) set to V.
void setInt(NDArray& a, size_t i, int64_t v) {
  if (a.dtype().bits == 64) {
    a.data<int64_t>()[i] = v;
  } else {
    a.data<int32_t>()[i] = static_cast<int32_t>(v);
  }
}

// A [1, VALUES.size()] integer tensor of TYPE.
NDArray row(const std::vector<int64_t>& values, DataType type) {
  NDArray a = NDArray::empty({1, static_cast<int64_t>(values.size())}, type);
  for (size_t i = 0; i < values.size(); ++i) setInt(a, i, values[i]);
  return a;
}

const Args& noArgs() {
  static const Args kNone;
  return kNone;
}

void checkTokenType(DataType type, const char* what) {
  if (type.bits != 32 && type.bits != 64) {
    throw Error(strCat("the decoder's ", what, " is ", type.str(), "; expected int32 or int64"));
  }
}

}  // namespace

Generator::Generator(Module executor)
    : exec_(std::move(executor)),
      setInput_(exec_["set_input"]),
      run_(exec_["run"]),
      getOutput_(exec_["get_output"]),
      carry_(exec_.getFunction("set_input_from_output")),
      decoder_(findDecoderInterface(exec_["get_input_info"]().asJson(),
                                    exec_["get_output_info"]().asJson())) {
  if (!carry_) {
    throw Error(strCat("the decoder's executor ('", exec_.typeKey(),
                       "') has no set_input_from_output, which carries the cache between steps; "
                       "generation needs the graph executor (kiln compile --executor graph)"));
  }
  checkTokenType(decoder_.tokenType, "token input");
  if (decoder_.attentionMask >= 0) checkTokenType(decoder_.maskType, "attention mask");
  if (decoder_.positionIds >= 0) checkTokenType(decoder_.positionType, "position ids");
}

void Generator::checkFits(int64_t promptLength, int64_t maxNewTokens) const {
  if (promptLength < 1) throw Error("the prompt is empty; expected at least one token id");
  if (maxNewTokens < 1) {
    throw Error(strCat("max new tokens is ", maxNewTokens, "; expected at least 1"));
  }
  if (decoder_.maxSequence >= 0 && promptLength > decoder_.maxSequence) {
    throw Error(strCat("the prompt has ", promptLength, " tokens, but the decoder takes at most ",
                       decoder_.maxSequence,
                       " per run (its bound); recompile it with a larger bound (--dim-bounds)"));
  }
  // The last step runs with every token but the newest cached.
  int64_t cached = promptLength + maxNewTokens - 2;
  for (const CachePair& c : decoder_.cache) {
    if (c.capacity < 0 || cached <= c.capacity) continue;
    throw Error(strCat("a prompt of ", promptLength, " tokens and ", maxNewTokens,
                       " new tokens need ", cached, " tokens cached, but '", c.inputName,
                       "' holds at most ", c.capacity, " (its bound): ask for at most ",
                       c.capacity - promptLength + 2,
                       " new tokens, or recompile with a larger bound (--dim-bounds)"));
  }
}

const float* Generator::prefill(const std::vector<int64_t>& prompt) {
  setInput_(decoder_.tokens, row(prompt, decoder_.tokenType));
  auto n = static_cast<int64_t>(prompt.size());
  if (decoder_.attentionMask >= 0) {
    setInput_(decoder_.attentionMask,
              row(std::vector<int64_t>(static_cast<size_t>(n), 1), decoder_.maskType));
  }
  if (decoder_.positionIds >= 0) {
    std::vector<int64_t> positions(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) positions[i] = i;
    setInput_(decoder_.positionIds, row(positions, decoder_.positionType));
  }
  for (const CachePair& c : decoder_.cache)
    setInput_(c.input, NDArray::empty(c.emptyShape, c.dtype));
  run_();
  logits_ = getOutput_(decoder_.logits).asNDArray();
  int64_t vocab = logits_.shape().back();
  int64_t rows = logits_.numel() / std::max<int64_t>(vocab, 1);
  return logits_.data<float>() + (rows - 1) * vocab;
}

void Generator::prepareDecode(int64_t maxCached) {
  auto args = [](int64_t position, const NDArray& array) {
    return Args{Value(position), Value(array)};
  };
  token_ = row({0}, decoder_.tokenType);
  tokenArgs_ = args(decoder_.tokens, token_);
  if (decoder_.positionIds >= 0) {
    position_ = row({0}, decoder_.positionType);
    positionArgs_ = args(decoder_.positionIds, position_);
  }
  if (decoder_.attentionMask >= 0) {  // sized per step in place, within its largest size
    mask_ = row(std::vector<int64_t>(static_cast<size_t>(maxCached + 1), 1), decoder_.maskType);
    maskArgs_ = args(decoder_.attentionMask, mask_);
  }
  carryArgs_.clear();
  for (const CachePair& c : decoder_.cache) carryArgs_.push_back({Value(c.input), Value(c.output)});
  stepLogits_ = NDArray::empty(decoder_.stepLogits, DataType::float32());
  logitsArgs_ = args(decoder_.logits, stepLogits_);
}

const float* Generator::decode(int64_t token, int64_t past) {
  setInt(token_, 0, token);
  setInput_.callPacked(tokenArgs_);
  if (decoder_.attentionMask >= 0) {
    maskShape_[1] = past + 1;
    mask_.reshapeInPlace(maskShape_);
    setInput_.callPacked(maskArgs_);
  }
  if (decoder_.positionIds >= 0) {
    setInt(position_, 0, past);
    setInput_.callPacked(positionArgs_);
  }
  for (const Args& a : carryArgs_) carry_.callPacked(a);
  run_.callPacked(noArgs());
  // A local executor copies into stepLogits_ and returns it; a session's returns a new array.
  logits_ = getOutput_.callPacked(logitsArgs_).asNDArray();
  return logits_.data<float>() + logits_.numel() - logits_.shape().back();
}

GenerateResult Generator::generate(const std::vector<int64_t>& prompt,
                                   const GenerateOptions& options) {
  checkFits(static_cast<int64_t>(prompt.size()), options.maxNewTokens);
  GenerateResult result;
  result.promptTokens = static_cast<int64_t>(prompt.size());
  result.tokens.reserve(static_cast<size_t>(options.maxNewTokens));
  result.stepMs.reserve(static_cast<size_t>(options.maxNewTokens));
  prepareDecode(result.promptTokens + options.maxNewTokens);
  auto start = std::chrono::steady_clock::now();
  const float* logits = prefill(prompt);
  Sampler sampler(options.sampling, logits_.shape().back());
  int64_t token = sampler.next(logits);
  result.prefillMs = millisSince(start);
  int64_t cached = result.promptTokens;
  auto emit = [&](int64_t t) {
    result.tokens.push_back(t);
    if (options.onToken) options.onToken(t);
    for (int64_t stop : options.stopIds) result.stopped = result.stopped || t == stop;
  };
  emit(token);
  while (!result.stopped && static_cast<int64_t>(result.tokens.size()) < options.maxNewTokens) {
    start = std::chrono::steady_clock::now();
    token = sampler.next(decode(token, cached));
    result.stepMs.push_back(millisSince(start));
    ++cached;
    emit(token);
  }
  return result;
}

}  // namespace kiln::runtime
