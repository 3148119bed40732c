// The generation loop of `kiln generate`, run by llama.cpp (npm node-llama-cpp, which ships
// llama.cpp's CPU libraries) on a GGUF file (bench/gguf_writer.py): the prompt evaluated in one
// batch, then one token per step, greedy (temperature 0), timed the same way (prefill: until the
// first token is picked; a step: from one token to the next). Prints one JSON line:
// {"tokens", "prefill_ms", "prefill_tokens_per_s", "decode_tokens_per_s", "step_ms"}.
// Usage: node llama_cpp_generate.js MODEL.gguf PROMPT_IDS(1,2,3) NEW_TOKENS [--threads N]
// [--warmup N] (N untimed generations first, as `kiln generate --warmup`) [--kv-cache F32|F16]
// (the key/value cache's type; llama.cpp's default is F16, F32 computes as kiln and ORT do)
// node-llama-cpp is installed into bench/node_modules by `npm install --prefix bench` (pinned in
// bench/package.json).
const path = require('path');
const {option, printReport} = require('./generation_report');

async function main() {
  const [model, promptText, newText, ...rest] = process.argv.slice(2);
  const threads = Number(option(rest, '--threads', 1));
  const warmup = Number(option(rest, '--warmup', 0));
  const kvCache = option(rest, '--kv-cache', 'F16');
  const prompt = promptText.split(',').map(Number);
  const newTokens = Number(newText);
  const {getLlama} = await import(path.join(__dirname, 'node_modules', 'node-llama-cpp', 'dist',
                                            'index.js'));
  const llama = await getLlama({gpu: false, build: 'never', maxThreads: threads,
                                logLevel: 'error'});
  const loaded = await llama.loadModel({modelPath: model, gpuLayers: 0});
  const context = await loaded.createContext({
    contextSize: prompt.length + newTokens + 1, batchSize: prompt.length, threads, sequences: 1,
    experimentalKvCacheKeyType: kvCache, experimentalKvCacheValueType: kvCache});
  const sequence = context.getSequence();
  const generate = async () => {
    await sequence.clearHistory();
    const tokens = [];
    const steps = [];
    let prefillMs = 0;
    let t = process.hrtime.bigint();
    for await (const token of sequence.evaluate(prompt, {temperature: 0, yieldEogToken: true})) {
      const now = process.hrtime.bigint();
      if (tokens.length === 0) prefillMs = Number(now - t) / 1e6;
      else steps.push(Number(now - t) / 1e6);
      tokens.push(token);
      t = now;
      if (tokens.length >= newTokens) break;
    }
    return {tokens, steps, prefillMs};
  };
  for (let k = 0; k < warmup; k++) await generate();
  printReport(await generate(), prompt.length);
  await context.dispose();
  await loaded.dispose();
  await llama.dispose();
}

main().catch((e) => { console.error(e); process.exit(1); });
