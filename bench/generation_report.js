// What the generation loops of bench/ort_generate.js and bench/llama_cpp_generate.js share: their
// options after the positional arguments, and the one JSON line each prints, in the fields of
// `kiln generate --json`.

// The value after FLAG in ARGS, else DEFAULT.
function option(args, flag, fallback) {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : fallback;
}

// Prints {"tokens", "prefill_ms", "prefill_tokens_per_s", "decode_tokens_per_s", "step_ms"}.
function printReport({tokens, steps, prefillMs}, promptLength) {
  const total = steps.reduce((a, b) => a + b, 0);
  console.log(JSON.stringify({
    tokens, prefill_ms: prefillMs, prefill_tokens_per_s: 1e3 * promptLength / prefillMs,
    decode_tokens_per_s: steps.length ? 1e3 * steps.length / total : 0, step_ms: steps}));
}

module.exports = {option, printReport};
