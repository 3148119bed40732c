// The generation loop of `kiln generate`, run by ONNX Runtime (npm onnxruntime-node): the prompt
// once with an empty cache, then one run per new token with the presents fed back as the pasts,
// greedy, timed the same way (a step: its inputs, its run, its token picked). Prints one JSON
// line: {"tokens", "prefill_ms", "prefill_tokens_per_s", "decode_tokens_per_s", "step_ms"}.
// Usage: node ort_generate.js DECODER.onnx PROMPT_IDS(1,2,3) NEW_TOKENS CACHE_DIMS [--threads N]
// [--warmup N] (N untimed generations first, as `kiln generate --warmup`)
// CACHE_DIMS is an empty cache input's shape, "1,12,0,64".
const path = require('path');
const {option, printReport} = require('./generation_report');
const ort = require(path.join(__dirname, '..', 'tests', 'e2e', 'node_modules', 'onnxruntime-node'));

function argmaxLastRow(logits) {
  const dims = logits.dims;
  const vocab = dims[dims.length - 1];
  const data = logits.data;
  const start = data.length - vocab;
  let best = 0;
  for (let j = 1; j < vocab; j++) if (data[start + j] > data[start + best]) best = j;
  return best;
}

async function main() {
  const [model, promptText, newText, cacheDims, ...rest] = process.argv.slice(2);
  const threads = Number(option(rest, '--threads', 1));
  const warmup = Number(option(rest, '--warmup', 0));
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all'});
  const cache = session.inputNames.filter((n) => n.includes('past'));
  const empty = new ort.Tensor('float32', new Float32Array(0), cacheDims.split(',').map(Number));
  const prompt = promptText.split(',').map(Number);
  const newTokens = Number(newText);
  const generate = async () => {
    const tokens = [];
    const steps = [];
    let past = null;
    let cached = 0;
    const run = async (ids) => {
      const feeds = {input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length])};
      if (session.inputNames.includes('position_ids')) {
        const pos = ids.map((_, k) => BigInt(cached + k));
        feeds.position_ids = new ort.Tensor('int64', BigInt64Array.from(pos), [1, ids.length]);
      }
      for (const n of cache) {
        feeds[n] = past ? past[n.replace('past_key_values', 'present')] : empty;
      }
      const out = await session.run(feeds);
      past = out;
      cached += ids.length;
      return argmaxLastRow(out.logits);
    };
    let t = process.hrtime.bigint();
    tokens.push(await run(prompt));
    const prefillMs = Number(process.hrtime.bigint() - t) / 1e6;
    while (tokens.length < newTokens) {
      t = process.hrtime.bigint();
      tokens.push(await run([tokens[tokens.length - 1]]));
      steps.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    return {tokens, steps, prefillMs};
  };
  for (let k = 0; k < warmup; k++) await generate();
  printReport(await generate(), prompt.length);
}

main().catch((e) => { console.error(e); process.exit(1); });
