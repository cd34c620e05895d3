// Compares an exported encoder.onnx in onnxruntime-node with the PyTorch outputs export_onnx.py --golden wrote; prints the figures.
// usage: node scripts/deepencoder/check_encoder.mjs <encoder.onnx> <golden-dir> [--threads N]   (after npm run build)
import { readFileSync } from "node:fs";
import path from "node:path";
import { VisionEncoder } from "../../dist/vision/encoder.js";

const [encoderPath, goldenDir] = process.argv.slice(2);
if (!encoderPath || !goldenDir) {
  console.error("usage: node scripts/deepencoder/check_encoder.mjs <encoder.onnx> <golden-dir> [--threads N]");
  process.exit(2);
}
const threadsAt = process.argv.indexOf("--threads");
const threads = threadsAt > 0 ? Number(process.argv[threadsAt + 1]) : 2;

function testPixels(n, size) {
  const out = new Float32Array(n * 3 * size * size);
  for (let i = 0; i < out.length; i++) out[i] = Math.fround(((i * 7919) % 2001) / 1000) - 1;
  return out;
}

const manifest = JSON.parse(readFileSync(path.join(goldenDir, "manifest.json"), "utf8"));
const t0 = performance.now();
const encoder = await VisionEncoder.open(encoderPath, { device: "auto", threads });
console.log(`opened ${encoderPath} on ${encoder.provider} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
let worst = 0;
for (const c of manifest.cases) {
  const t = performance.now();
  const out = await encoder.encode(testPixels(c.views, c.size), [c.views, 3, c.size, c.size]);
  const seconds = (performance.now() - t) / 1000;
  const buf = readFileSync(path.join(goldenDir, c.file));
  const ref = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  let maxAbs = 0,
    maxRef = 0,
    sumAbs = 0,
    sumSq = 0,
    sumRefSq = 0;
  for (let i = 0; i < ref.length; i++) {
    const d = Math.abs(out.data[i] - ref[i]);
    maxAbs = Math.max(maxAbs, d);
    maxRef = Math.max(maxRef, Math.abs(ref[i]));
    sumAbs += d;
    sumSq += d * d;
    sumRefSq += ref[i] * ref[i];
  }
  const rel = maxAbs / maxRef;
  worst = Math.max(worst, rel);
  console.log(
    `${c.views}x${c.size}: dims [${out.dims}] (torch [${c.dims}])  max|diff| ${maxAbs.toExponential(3)}  max|ref| ${maxRef.toFixed(3)}  ` +
      `max rel ${rel.toExponential(3)}  mean|diff| ${(sumAbs / ref.length).toExponential(3)}  nmse ${(sumSq / sumRefSq).toExponential(3)}  ` +
      `onnxruntime ${seconds.toFixed(2)} s  torch ${c.torch_seconds} s`,
  );
}
await encoder.close();
console.log(worst < 1e-3 ? `OK: worst max-rel error ${worst.toExponential(3)}` : `FAIL: worst max-rel error ${worst.toExponential(3)}`);
process.exit(worst < 1e-3 ? 0 : 1);
