// Runs an ONNX model with ONNX Runtime (npm onnxruntime-node), the reference kiln is checked
// against. Usage: node ort_run.js MODEL.onnx IN.bin DIMS OUT.bin [--threads N] [--time REPEAT]
// [--dtype float32|int64]. IN.bin holds the one input raw little-endian (float32 unless --dtype
// says int64), OUT.bin receives the first output as raw float32; DIMS is "1,3,224,224". With --time it prints
// one JSON line of latency statistics (ms) over REPEAT runs after one warm-up, and the time the
// session took to create (ONNX Runtime's graph optimisation: its "compile time").
const fs = require('fs');
const ort = require('onnxruntime-node');

function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const pct = (p) => {
    const r = (p / 100) * (s.length - 1);
    const lo = Math.floor(r);
    const hi = Math.min(lo + 1, s.length - 1);
    return s[lo] + (s[hi] - s[lo]) * (r - lo);
  };
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return {mean_ms: mean, median_ms: pct(50), min_ms: s[0], max_ms: s[s.length - 1], runs: s.length};
}

async function main() {
  const [model, inPath, dims, outPath, ...rest] = process.argv.slice(2);
  const str = (k) => { const i = rest.indexOf(k); return i >= 0 ? rest[i + 1] : undefined; };
  const opt = (k) => (str(k) === undefined ? undefined : Number(str(k)));
  const dtype = str('--dtype') || 'float32';
  const threads = opt('--threads') || 1;
  const repeat = opt('--time');
  const created = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all'});
  const createMs = Number(process.hrtime.bigint() - created) / 1e6;
  const buf = fs.readFileSync(inPath);
  const bytes = new Uint8Array(buf).buffer;  // a private, aligned copy
  const data = dtype === 'int64' ? new BigInt64Array(bytes) : new Float32Array(bytes);
  const feeds = {[session.inputNames[0]]: new ort.Tensor(dtype, data, dims.split(',').map(Number))};
  let result = await session.run(feeds);
  const out = result[session.outputNames[0]].data;
  fs.writeFileSync(outPath, Buffer.from(out.buffer, out.byteOffset, out.byteLength));
  if (repeat) {
    const ms = [];
    for (let i = 0; i < repeat; i++) {
      const t = process.hrtime.bigint();
      result = await session.run(feeds);
      ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    console.log(JSON.stringify({...stats(ms), create_ms: createMs}));
  }
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
