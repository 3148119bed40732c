// Runs an ONNX model with ONNX Runtime (npm onnxruntime-node), the reference kiln is checked
// against. Usage: node ort_run.js MODEL.onnx IN.bin DIMS OUT.bin [--threads N] [--time REPEAT]
// IN.bin / OUT.bin hold raw little-endian float32; DIMS is "1,3,224,224". With --time it prints
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
  const opt = (k) => { const i = rest.indexOf(k); return i >= 0 ? Number(rest[i + 1]) : undefined; };
  const threads = opt('--threads') || 1;
  const repeat = opt('--time');
  const created = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all'});
  const createMs = Number(process.hrtime.bigint() - created) / 1e6;
  const buf = fs.readFileSync(inPath);
  const data = new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', data, dims.split(',').map(Number))};
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
