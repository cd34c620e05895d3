// Full-size decoder check, native side: runs the native decoder on a converted checkpoint (prefix layout, full attention
// and R-SWA), dumps per-layer hidden states of the prefix and the greedy tokens for ocr_tools.deepencoder.check_decoder
// (python -m, PYTHONPATH=python) to compare.
// usage: node scripts/deepencoder/check_decoder.mjs <bundle-dir> <dump-dir> [--tokens N] [--window W] [--threads T]
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Decoder } from "../../dist/native/index.js";
import { loadBundle } from "../../dist/model/bundle.js";
import { buildPrefixPrompt } from "../../dist/model/prompt.js";
import { Tokenizer } from "../../dist/model/tokenizer.js";

const [bundleDir, dumpDir] = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
if (!bundleDir || !dumpDir) {
  console.error("usage: node scripts/deepencoder/check_decoder.mjs <bundle-dir> <dump-dir> [--tokens N] [--window W] [--threads T]");
  process.exit(2);
}
const newTokens = arg("--tokens", 24);
const window = arg("--window", 8);
const threads = arg("--threads", 2);

const bundle = await loadBundle(bundleDir);
const tokenizer = await Tokenizer.load(bundle.tokenizerPath);
const hidden = bundle.json.decoder.hidden_size;
const visualCount = 273;
// deterministic stand-in for encoder output, at the scale of real visual embeddings
const visual = new Float32Array(visualCount * hidden);
for (let r = 0; r < visualCount; r++)
  for (let c = 0; c < hidden; c++) visual[r * hidden + c] = Math.fround(0.05 * Math.sin(0.37 * r + 0.11 * c));
const prompt = buildPrefixPrompt(tokenizer, bundle.json, "<image>document parsing.", visualCount);
const textIds = prompt.ids.filter((_, i) => i < prompt.visualStart || i >= prompt.visualStart + visualCount);
const positions = Array.from({ length: visualCount }, (_, i) => prompt.visualStart + i);

mkdirSync(dumpDir, { recursive: true });
let t = performance.now();
const decoder = await Decoder.load(bundle.dir, { threads });
console.log(`decoder loaded in ${((performance.now() - t) / 1000).toFixed(1)} s: ${JSON.stringify(decoder.info)}`);
const summary = { ids: prompt.ids, visualStart: prompt.visualStart, visualCount, window, runs: {} };
for (const policy of [{ kind: "full" }, { kind: "rswa", window }]) {
  const session = decoder.createSession({ attention: policy });
  t = performance.now();
  const pre = await session.prefill(
    { tokens: textIds, embeddings: visual, embeddingPositions: positions },
    { captureHidden: policy.kind === "full" },
  );
  const prefillSeconds = (performance.now() - t) / 1000;
  if (pre.hidden)
    writeFileSync(path.join(dumpDir, "prefix-hidden.f32"), Buffer.from(pre.hidden.buffer, pre.hidden.byteOffset, pre.hidden.byteLength));
  writeFileSync(
    path.join(dumpDir, `prefix-logits-${policy.kind}.f32`),
    Buffer.from(pre.logits.buffer, pre.logits.byteOffset, pre.logits.byteLength),
  );
  t = performance.now();
  const stream = session.generate({ maxTokens: newTokens });
  const result = await stream.result;
  const decodeSeconds = (performance.now() - t) / 1000;
  // probe: one more extended entry after the generated text; its logits depend on which generated keys the policy keeps
  const fed = session.stats().length - prompt.ids.length;
  const probeToken = 16;
  const probe = await session.extend({ tokens: [probeToken] });
  writeFileSync(
    path.join(dumpDir, `probe-logits-${policy.kind}.f32`),
    Buffer.from(probe.logits.buffer, probe.logits.byteOffset, probe.logits.byteLength),
  );
  summary.runs[policy.kind] = {
    tokens: result.tokens,
    fed,
    probeToken,
    prefillSeconds,
    decodeSeconds,
    tokensPerSecond: result.tokens.length / decodeSeconds,
  };
  console.log(
    `${policy.kind}: prefill ${prompt.ids.length} entries in ${prefillSeconds.toFixed(1)} s, ${result.tokens.length} tokens in ${decodeSeconds.toFixed(1)} s (${(result.tokens.length / decodeSeconds).toFixed(2)} tok/s): ${result.tokens.join(" ")}`,
  );
}
writeFileSync(path.join(dumpDir, "summary.json"), JSON.stringify(summary));
