#!/usr/bin/env node
// Benchmark of the native decoder: decode/prefill tokens/s beside the memory-bandwidth bound and onnxruntime-node.
// Usage: node scripts/bench-decoder.mjs [--json] [--threads N] [--prefixes 273,1024,4096] [--decode-tokens 32]
//                                       [--skip-large] [--skip-ort] [--cache DIR] [--kernels auto|avx2|avx512|avx512bf16]
//                                       [--bandwidth-mb 1024] [--quantized q8,q4|none]
// Needs `npm run build` (imports dist/native) and the native addon. The DeepSeek-OCR-shape random bf16 decoder
// (~6.3 GB) and the tiny decoder's ONNX export are generated once into the cache folder (default ~/.cache/ocr/bench)
// with `python -m ocr_tools.bench_decoder` (python/; the interpreter is found as `ocr models convert` finds it: $OCR_PYTHON,
// else python3 on PATH, then /usr/bin/python3, the first with PyTorch and onnx); its q8 / q4 copies (--quantized) with
// `ocr models quantize`'s code, also once. Each prefix gets a row per weight format in the same run (bf16, then q8_0,
// then q4_1), each with its own bandwidth bound, its decode speed relative to the bf16 row and its prefill logits' NMSE
// against the bf16 row's. Results go to stdout, progress to stderr.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { cliArgs } from "./bench-common.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { flag, option } = cliArgs();
const json = flag("--json");
const threads = Number(option("--threads", String(os.availableParallelism())));
const prefixes = option("--prefixes", "273,1024,4096").split(",").map(Number);
const decodeTokens = Number(option("--decode-tokens", "32"));
const bandwidthMB = Number(option("--bandwidth-mb", "1024"));
const kernels = option("--kernels", "auto");
const quantizedOpt = option("--quantized", "q8,q4");
const quantized = quantizedOpt === "none" ? [] : quantizedOpt.split(",");
const cacheDir = path.resolve(
  option("--cache", path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "ocr", "bench")),
);
const log = (msg) => process.stderr.write(msg + "\n");

if (!Number.isInteger(threads) || threads < 1) {
  log(`bench-decoder: --threads must be a positive integer (got ${option("--threads")})`);
  process.exit(2);
}
if (quantized.some((q) => q !== "q8" && q !== "q4")) {
  log(`bench-decoder: --quantized must be q8, q4, q8,q4 or none (got ${quantizedOpt})`);
  process.exit(2);
}
if (prefixes.some((p) => !Number.isInteger(p) || p < 1)) {
  log(`bench-decoder: --prefixes must be a comma-separated list of positive integers`);
  process.exit(2);
}

const nativeEntry = path.join(repo, "dist/native/index.js");
if (!existsSync(nativeEntry)) {
  log(`bench-decoder: ${nativeEntry} is missing: run \`npm run build\` first`);
  process.exit(3);
}
const { Decoder, loadBenchAddon } = await import(pathToFileURL(nativeEntry).href);
const { findPython, pythonEnv } = await import(pathToFileURL(path.join(repo, "dist/model/convert.js")).href);
const addon = loadBenchAddon(); // the bandwidth probe lives in the bench addon; the decoder loads the product one

function ensure(file, args, what) {
  if (existsSync(file)) return;
  log(`bench-decoder: generating ${what} (once) ...`);
  execFileSync(findPython(), ["-m", "ocr_tools.bench_decoder", ...args], { stdio: ["ignore", "inherit", "inherit"], env: pythonEnv() });
}

// A deterministic prefix of ordinary token ids (the visual rows would only change the inputs, not the work).
function prefixTokens(n, vocab) {
  let s = 12345;
  return Array.from({ length: n }, (_, i) => {
    if (i === 0) return 0;
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return 5 + (s % (vocab - 5));
  });
}

const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;

// Prefill of a short prefix takes milliseconds, so one timing is mostly noise on a shared machine: both runtimes'
// prefills are repeated until PREFILL_MIN_S has passed (at least once, at most PREFILL_MAX_RUNS) and the median counts.
const PREFILL_MIN_S = 1,
  PREFILL_MAX_RUNS = 50;
async function medianOfRuns(run) {
  const times = [];
  let total = 0;
  while (times.length < PREFILL_MAX_RUNS && (times.length === 0 || total < PREFILL_MIN_S)) {
    const s = await run();
    times.push(s);
    total += s;
  }
  times.sort((a, b) => a - b);
  const m = times.length >> 1;
  return times.length % 2 ? times[m] : (times[m - 1] + times[m]) / 2;
}

async function benchOurs(dir, prefix, kvDtype) {
  const decoder = await Decoder.load(dir, { threads, kernels });
  const cfg = decoder.config;
  const tokens = prefixTokens(prefix, cfg.vocab_size);
  // An untimed short prefill first (first touch of the mapped weights, the pool's threads), then fresh sessions.
  const warm = decoder.createSession({ kvDtype });
  await warm.prefill({ tokens: tokens.slice(0, Math.min(prefix, 32)) });
  warm.dispose();
  let session;
  let logits;
  const prefillSeconds = await medianOfRuns(async () => {
    session?.dispose();
    session = decoder.createSession({ kvDtype });
    const t = process.hrtime.bigint();
    logits = (await session.prefill({ tokens })).logits;
    return seconds(t);
  });
  const prefillTokPerS = prefix / prefillSeconds;
  let t0;
  await session.generate({ maxTokens: 3 }).result; // warm-up: pages of the experts in use, caches
  const liveBefore = session.stats().liveEntries;
  // The machine may be shared: bandwidth is measured right before and after the timed decode, and the
  // row's bound uses their mean, so both sides of the ratio see the same conditions.
  const bwBefore = addon.testing.measureBandwidth(bandwidthMB, threads, 3);
  t0 = process.hrtime.bigint();
  const r = await session.generate({ maxTokens: decodeTokens }).result;
  const decodeTokPerS = r.tokens.length / seconds(t0);
  // how the weights were held: copied at load or mapped, and their share in huge pages once read (DecoderOptions.pages)
  const hugeShare = decoder.hugePageBytes() / decoder.info.mappedBytes;
  const copied = decoder.info.copiedBytes > 0;
  const bwAfter = addon.testing.measureBandwidth(bandwidthMB, threads, 3);
  // Bytes one step streams: weights (attention, dense MLP, router, top-k + shared experts, lm_head), the
  // K and V rows it attends (average over the timed steps), and its embedding row.
  const kvSize = kvDtype === "f32" ? 4 : 2;
  const avgLive = liveBefore + (r.tokens.length + 1) / 2;
  const kvBytes = avgLive * cfg.num_hidden_layers * 2 * cfg.num_key_value_heads * cfg.head_dim * kvSize;
  const wSize = decoder.info.embedDtype === "f32" ? 4 : 2; // the embedding stays float in quantised bundles
  const bytesPerToken = decoder.info.decodeWeightBytes + kvBytes + cfg.hidden_size * wSize;
  session.dispose();
  return {
    prefillTokPerS,
    decodeTokPerS,
    bytesPerToken,
    bandwidthGBs: (bwBefore + bwAfter) / 2,
    kernels: decoder.info.kernels,
    weightDtype: decoder.info.weightDtype,
    hugeShare,
    copied,
    logits,
  };
}

async function benchOrt(onnxPath, cfg, prefix) {
  const ort = await import("onnxruntime-node");
  const session = await ort.InferenceSession.create(onnxPath, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
  });
  const L = cfg.num_hidden_layers,
    KV = cfg.num_key_value_heads,
    D = cfg.head_dim;
  const empty = new ort.Tensor("float32", new Float32Array(0), [L, KV, 0, D]);
  const ids = BigInt64Array.from(prefixTokens(prefix, cfg.vocab_size), BigInt);
  const prefillFeeds = (n) => ({ input_ids: new ort.Tensor("int64", ids.slice(0, n), [1, n]), past_key: empty, past_value: empty });
  await session.run(prefillFeeds(Math.min(prefix, 32))); // untimed, as for ours
  let out;
  const prefillSeconds = await medianOfRuns(async () => {
    const t = process.hrtime.bigint();
    out = await session.run(prefillFeeds(prefix));
    return seconds(t);
  });
  const prefillTokPerS = prefix / prefillSeconds;
  let t0;
  const argmax = (logits) => {
    let best = 0;
    for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
    return best;
  };
  const step = async () => {
    const tok = argmax(out.logits.data);
    out = await session.run({
      input_ids: new ort.Tensor("int64", BigInt64Array.of(BigInt(tok)), [1, 1]),
      past_key: out.present_key,
      past_value: out.present_value,
    });
  };
  for (let i = 0; i < 3; i++) await step();
  t0 = process.hrtime.bigint();
  for (let i = 0; i < decodeTokens; i++) await step();
  const decodeTokPerS = decodeTokens / seconds(t0);
  await session.release?.();
  return { prefillTokPerS, decodeTokPerS };
}

const largeDir = path.join(cacheDir, "deepseek-ocr-shape");
const models = [
  { name: "tiny", dir: path.join(repo, "fixtures/tiny-model"), kvDtype: "f32", ort: true },
  { name: "deepseek-ocr-shape", dir: largeDir, kvDtype: "bf16", ort: false, large: true },
  ...quantized.map((q) => ({ name: "deepseek-ocr-shape", dir: `${largeDir}-${q}`, kvDtype: "bf16", ort: false, large: true, quantize: q })),
];

/** The quantised copy of the bf16 decoder (`ocr models quantize`'s code), written once beside it. */
async function ensureQuantized(dir, to) {
  if (existsSync(path.join(dir, "model.json"))) return;
  log(`bench-decoder: quantising the DeepSeek-OCR-shape decoder to ${to} into ${dir} (once) ...`);
  const { quantizeBundle } = await import(pathToFileURL(path.join(repo, "dist/model/quantize.js")).href);
  await quantizeBundle(largeDir, { to, out: dir, log });
}

/** Normalised squared error of `a` against the reference `b`. */
function nmse(a, b) {
  let num = 0;
  let den = 0;
  for (let i = 0; i < b.length; i++) {
    num += (a[i] - b[i]) ** 2;
    den += b[i] ** 2;
  }
  return num / den;
}

log(`bench-decoder: ${threads} thread(s), CPU kernels available: ${addon.cpuFeatures}`);
log(`bench-decoder: measuring streaming-read bandwidth ...`);
const bandwidthGBs = addon.testing.measureBandwidth(bandwidthMB, threads, 5);
log(`bench-decoder: ${bandwidthGBs.toFixed(1)} GB/s`);

const rows = [];
const runs = [];
for (const m of models) {
  if (m.large && flag("--skip-large")) continue;
  if (m.large)
    ensure(
      path.join(largeDir, "model.safetensors"),
      ["checkpoint", "--out", largeDir],
      `the DeepSeek-OCR-shape random decoder in ${largeDir}`,
    );
  if (m.quantize) await ensureQuantized(m.dir, m.quantize);
  runs.push(m);
}
// Prefix by prefix, the model's formats one after the other (bf16 first: the others are compared with it).
for (const name of [...new Set(runs.map((m) => m.name))]) {
  const variants = runs.filter((m) => m.name === name);
  for (const m of variants) {
    const onnxPath = path.join(cacheDir, `${m.name}-decoder.onnx`);
    if (m.ort && !flag("--skip-ort")) ensure(onnxPath, ["onnx", "--model", m.dir, "--out", onnxPath], `the ONNX export of ${m.name}`);
  }
  for (const prefix of prefixes) {
    let base;
    for (const m of variants) {
      log(`bench-decoder: ${m.name}${m.quantize ? ` (${m.quantize})` : ""} prefix ${prefix} ...`);
      const ours = await benchOurs(m.dir, prefix, m.kvDtype);
      const boundTokPerS = (ours.bandwidthGBs * 1e9) / ours.bytesPerToken;
      const row = {
        model: m.name,
        dtype: ours.weightDtype,
        kvDtype: m.kvDtype,
        kernels: ours.kernels,
        threads,
        prefix,
        bandwidthGBs: ours.bandwidthGBs,
        decodeTokPerS: ours.decodeTokPerS,
        prefillTokPerS: ours.prefillTokPerS,
        bytesPerToken: ours.bytesPerToken,
        boundTokPerS,
        boundShare: ours.decodeTokPerS / boundTokPerS,
        hugeShare: ours.hugeShare,
        weightsCopied: ours.copied,
      };
      if (!m.quantize) base = { ours, row };
      else if (base) {
        row.decodeVsBase = ours.decodeTokPerS / base.ours.decodeTokPerS;
        row.logitsNmseVsBase = nmse(ours.logits, base.ours.logits);
        row.baseDtype = base.ours.weightDtype;
      }
      if (m.ort && !flag("--skip-ort")) {
        const cfg = (await Decoder.load(m.dir, { threads: 1 })).config;
        const o = await benchOrt(path.join(cacheDir, `${m.name}-decoder.onnx`), cfg, prefix);
        row.ortDecodeTokPerS = o.decodeTokPerS;
        row.ortPrefillTokPerS = o.prefillTokPerS;
        row.decodeVsOrt = ours.decodeTokPerS / o.decodeTokPerS;
        row.prefillVsOrt = ours.prefillTokPerS / o.prefillTokPerS;
      }
      rows.push(row);
    }
  }
}

const machine = {
  cpu: os.cpus()[0]?.model ?? "unknown",
  cores: os.availableParallelism(),
  features: addon.cpuFeatures,
  loadavg: os.loadavg()[0],
};
if (json) {
  process.stdout.write(JSON.stringify({ benchmark: "decoder", machine, threads, bandwidthGBs, decodeTokens, rows }) + "\n");
} else {
  const f = (x, d = 1) => (x === undefined ? "-" : x.toFixed(d));
  const header = [
    "model",
    "dtype",
    "prefix",
    "decode tok/s",
    "GB/s",
    "bound tok/s",
    "of bound",
    "2 MB pages",
    "x bf16",
    "logits NMSE",
    "ORT decode",
    "vs ORT",
    "prefill tok/s",
    "ORT prefill",
    "vs ORT",
  ];
  const lines = rows.map((r) => [
    r.model,
    `${r.dtype}/kv ${r.kvDtype}`,
    String(r.prefix),
    f(r.decodeTokPerS),
    f(r.bandwidthGBs),
    f(r.boundTokPerS),
    `${f(r.boundShare * 100, 0)}%`,
    `${f(r.hugeShare * 100, 0)}%${r.weightsCopied ? " copied" : ""}`,
    r.decodeVsBase ? `${f(r.decodeVsBase, 2)}x` : "-",
    r.logitsNmseVsBase === undefined ? "-" : r.logitsNmseVsBase.toExponential(1),
    f(r.ortDecodeTokPerS),
    r.decodeVsOrt ? `${f(r.decodeVsOrt, 2)}x` : "-",
    f(r.prefillTokPerS),
    f(r.ortPrefillTokPerS),
    r.prefillVsOrt ? `${f(r.prefillVsOrt, 2)}x` : "-",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  process.stdout.write(
    `decoder benchmark: ${machine.cpu}, ${threads} thread(s), kernels ${rows[0]?.kernels ?? "?"}, ` +
      `read bandwidth ${bandwidthGBs.toFixed(1)} GB/s at start, ${decodeTokens} decode steps per row (load avg ${machine.loadavg.toFixed(1)})\n`,
  );
  process.stdout.write(fmt(header) + "\n" + lines.map(fmt).join("\n") + "\n");
  process.stdout.write(
    "bound = bandwidth (GB/s: streaming read measured just before and after that row's decode) / bytes read per decode step\n" +
      "        (weights incl. router, top-k + shared experts and lm_head; the K/V rows attended; the embedding row).\n" +
      "2 MB pages = the share of the weight files held in huge pages after the row's decode (the probe reads huge pages too);\n" +
      "        copied = read into anonymous memory at load, as the file's page cache held it in small pages (ops/safetensors.h).\n",
  );
  process.stdout.write(
    "x bf16, logits NMSE = a quantised row's decode tok/s over the bf16 row's of the same prefix, and its prefill logits'\n" +
      "        squared error against the bf16 row's, over their squared norm (q8_0 / q4_1 blocks: ocr models quantize).\n",
  );
  process.stdout.write(
    "ORT = onnxruntime-node on the same decoder exported with past key/values (dense MoE: all experts computed, unrouted ones zero-weighted).\n",
  );
}
