#!/usr/bin/env node
// Benchmark of the decoder's attention policies: focal pruning (attention ms per decode step) and R-SWA (tokens/s, KV bytes).
// Usage: node scripts/bench-attention.mjs [--json] [--threads N] [--visual 273,1000,2473,8000] [--keeps 1,0.2,0.1,0.05,0.02]
//          [--steps 8] [--rounds 3] [--focal-layers 2] [--warmup 4] [--lengths 256,2048,8192,16384] [--window 128]
//          [--skip-focal] [--skip-window] [--skip-accuracy] [--accuracy-keep 0.05[,0.2,…]] [--accuracy-pages 4]
//          [--synth DIR] [--real DIR] [--model DIR] [--cache DIR]
// Needs `npm run build` (imports dist/native) and the native addon. Models are random-weight decoders written
// once into the cache folder (default ~/.cache/ocr/bench): timing does not depend on the weights' values.
// - focal rows: the DeepSeek-OCR decoder's attention shape (12 layers, 10 heads x 128, f32 KV) with a narrow
//   residual stream (512) so an 8000-token prefill stays affordable on a CPU; one prefill per visual count, then
//   full attention and each keep ratio in turn on the same session (Session.setFocal restarts the warm-up), in
//   --rounds rounds; each figure is the median over the rounds, so full and focal are measured at the same times
//   of a shared machine's load instead of full once before all the keeps.
// - window rows: a small decoder (2 layers, 4 heads x 64) generating 16k tokens once per policy; tokens/s is
//   measured over the last 128 steps before each output length.
// - accuracy: the default model (or --model) reads held-out synthetic test pages (--synth, generator Markdown as
//   truth) and real born-digital pages (--real, the PDF text layer as truth) through `ocr parse`, once unpruned
//   (--no-focal) and once with --focal-keep τ; CER = edit distance / truth length on markup-free,
//   whitespace-normalised text (scripts/cer.mjs plainText, as ocr bench parse scores it).
// Results go to stdout, progress to stderr.
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, writeSync, closeSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { execFileSync } from "node:child_process";
import { cliArgs } from "./bench-common.mjs";
import { editDistance, plainText } from "./cer.mjs";
import { dataDefault } from "./data-dir.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { flag, option, list } = cliArgs();
const json = flag("--json");
const threads = Number(option("--threads", String(Math.min(2, os.availableParallelism()))));
const visualCounts = list(option("--visual", "273,1000,2473,8000"));
const keeps = list(option("--keeps", "1,0.2,0.1,0.05,0.02"));
const steps = Number(option("--steps", "8"));
const rounds = Number(option("--rounds", "3"));
const focalLayers = Number(option("--focal-layers", "2"));
const warmup = Number(option("--warmup", "4"));
const lengths = list(option("--lengths", "256,2048,8192,16384"));
const window = Number(option("--window", "128"));
const accuracyKeeps = list(option("--accuracy-keep", "0.05"));
const accuracyPages = Number(option("--accuracy-pages", "4"));
const synthDir = option("--synth", dataDefault("synth", "test"));
const realDir = option("--real", path.resolve(repo, "../shared/data/real/debian"));
const modelDir = option("--model", path.join(repo, "models/default"));
const cacheDir = path.resolve(
  option("--cache", path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "ocr", "bench")),
);
const log = (msg) => process.stderr.write(msg + "\n");

if (!Number.isInteger(rounds) || rounds < 1) {
  log("bench attention: --rounds must be a positive integer");
  process.exit(2);
}
for (const [name, values] of [
  ["--visual", visualCounts],
  ["--keeps", keeps],
  ["--lengths", lengths],
])
  if (values.some((v) => !Number.isFinite(v) || v <= 0)) {
    log(`bench attention: ${name} must list positive numbers`);
    process.exit(2);
  }

const distNative = path.join(repo, "dist/native/index.js");
if (!existsSync(distNative)) {
  log(`bench attention: ${distNative} is missing; run \`npm run build\` first`);
  process.exit(3);
}
const { Decoder } = await import(pathToFileURL(distNative).href);

// Deterministic uniform noise (xorshift32) with the given standard deviation.
function noise(n, std, seed) {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  const a = std * Math.sqrt(3);
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = ((s / 4294967296) * 2 - 1) * a;
  }
  return out;
}

/** Writes a random dense decoder bundle (f32 safetensors) unless it exists; returns its folder. */
function benchModel(name, d) {
  const dir = path.join(cacheDir, name);
  if (existsSync(path.join(dir, "model.json"))) return dir;
  mkdirSync(dir, { recursive: true });
  log(`writing ${dir} (random weights)`);
  const { hidden_size: H, num_attention_heads: NH, num_key_value_heads: NKV, head_dim: D, intermediate_size: I, vocab_size: V } = d;
  const shapes = [
    ["model.embed_tokens.weight", [V, H], 1],
    ["lm_head.weight", [V, H], 1],
    ["model.norm.weight", [H], 0],
  ];
  for (let l = 0; l < d.num_hidden_layers; l++) {
    const p = `model.layers.${l}`;
    shapes.push(
      [`${p}.input_layernorm.weight`, [H], 0],
      [`${p}.post_attention_layernorm.weight`, [H], 0],
      [`${p}.self_attn.q_proj.weight`, [NH * D, H], 1],
      [`${p}.self_attn.k_proj.weight`, [NKV * D, H], 1],
      [`${p}.self_attn.v_proj.weight`, [NKV * D, H], 1],
      [`${p}.self_attn.o_proj.weight`, [H, NH * D], 1],
      [`${p}.mlp.gate_proj.weight`, [I, H], 1],
      [`${p}.mlp.up_proj.weight`, [I, H], 1],
      [`${p}.mlp.down_proj.weight`, [H, I], 1],
    );
  }
  const header = {};
  let off = 0;
  for (const [n, shape] of shapes) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 4;
    header[n] = { dtype: "F32", shape, data_offsets: [off, off + bytes] };
    off += bytes;
  }
  let h = JSON.stringify(header);
  h += " ".repeat((8 - (h.length % 8)) % 8);
  const tmp = path.join(dir, "model.safetensors.tmp");
  const fd = openSync(tmp, "w");
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(h.length));
  writeSync(fd, len);
  writeSync(fd, Buffer.from(h, "utf8"));
  let seed = 1;
  for (const [, shape, random] of shapes) {
    const n = shape.reduce((a, b) => a * b, 1);
    const x = random ? noise(n, 0.05, seed++ * 2654435761) : new Float32Array(n).fill(1);
    writeSync(fd, Buffer.from(x.buffer, x.byteOffset, x.byteLength));
  }
  closeSync(fd);
  renameSync(tmp, path.join(dir, "model.safetensors"));
  writeFileSync(
    path.join(dir, "model.json"),
    JSON.stringify({ format: "ocr-model/1", name, family: "deepseek-ocr", decoder: { ...d, weights: ["model.safetensors"] } }, null, 1),
  );
  return dir;
}

const dense = {
  moe_intermediate_size: 0,
  n_routed_experts: 0,
  num_experts_per_tok: 0,
  n_shared_experts: 0,
  norm_topk_prob: false,
  routed_scaling_factor: 1,
  rms_norm_eps: 1e-6,
  rope_theta: 10000,
  tie_word_embeddings: false,
};
const focalShape = {
  vocab_size: 1024,
  hidden_size: 512,
  num_hidden_layers: 12,
  num_attention_heads: 10,
  num_key_value_heads: 10,
  head_dim: 128,
  intermediate_size: 512,
  first_k_dense_replace: 12,
  ...dense,
};
const windowShape = {
  vocab_size: 512,
  hidden_size: 256,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 4,
  head_dim: 64,
  intermediate_size: 256,
  first_k_dense_replace: 2,
  ...dense,
};

async function generate(session, n) {
  const stream = session.generate({ maxTokens: n });
  for await (const _ of stream) void _;
  return stream.result;
}

// Attention ms per step and decode tokens/s over `n` steps, from the decoder's own counters.
async function timed(session, n) {
  const a = session.stats();
  await generate(session, n);
  const b = session.stats();
  const k = b.decodeSteps - a.decodeSteps;
  return { attnMsPerStep: (b.attentionMs - a.attentionMs) / k, decodeTokPerS: (k * 1000) / (b.decodeMs - a.decodeMs) };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function prefixFor(decoder, visual, seed) {
  return {
    tokens: [0, 11, 12, 13, 14, 15, 16, 17],
    embeddings: noise(visual * decoder.config.hidden_size, 1, seed),
    embeddingPositions: Array.from({ length: visual }, (_, i) => i + 1),
  };
}

const result = { model: {}, focal: [], window: [] };

if (!flag("--skip-focal")) {
  const decoder = await Decoder.load(benchModel("attention-focal-12x10x128", focalShape), { threads });
  result.model.focal = {
    layers: 12,
    heads: 10,
    headDim: 128,
    hidden: 512,
    kvDtype: "f32",
    focalLayers,
    warmup,
    steps,
    rounds,
    threads,
    kernels: decoder.info.kernels,
  };
  for (const N of visualCounts) {
    const s = decoder.createSession();
    const t0 = performance.now();
    await s.prefill(prefixFor(decoder, N, N));
    log(`focal: prefill of ${N} visual tokens in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await generate(s, 2);
    const full = [];
    const focal = keeps.map(() => []);
    const chosen = keeps.map(() => []);
    for (let r = 0; r < rounds; r++) {
      s.setFocal(undefined);
      await generate(s, 1);
      full.push(await timed(s, steps));
      log(`  round ${r + 1} full: ${full[r].attnMsPerStep.toFixed(2)} ms attention/step, ${full[r].decodeTokPerS.toFixed(1)} tok/s`);
      for (const [i, keep] of keeps.entries()) {
        s.setFocal({ keep, layers: focalLayers, warmup });
        await generate(s, warmup + 1); // warm-up, then one step where layers before the first focal one see everything
        focal[i].push(await timed(s, steps));
        chosen[i] = s.stats().focalLayers;
        log(
          `  round ${r + 1} keep ${keep}: ${focal[i][r].attnMsPerStep.toFixed(2)} ms attention/step, ${focal[i][r].decodeTokPerS.toFixed(1)} tok/s (focal layers ${chosen[i].join(",")})`,
        );
      }
    }
    const fullAttn = median(full.map((x) => x.attnMsPerStep)),
      fullTok = median(full.map((x) => x.decodeTokPerS));
    for (const [i, keep] of keeps.entries())
      result.focal.push({
        visualTokens: N,
        keep,
        attnMsPerStep: median(focal[i].map((x) => x.attnMsPerStep)),
        fullAttnMsPerStep: fullAttn,
        decodeTokPerS: median(focal[i].map((x) => x.decodeTokPerS)),
        fullDecodeTokPerS: fullTok,
        rounds,
        focalLayers: chosen[i],
      });
    s.dispose();
  }
}

if (!flag("--skip-window")) {
  const decoder = await Decoder.load(benchModel("attention-window-2x4x64", windowShape), { threads });
  result.model.window = { layers: 2, heads: 4, headDim: 64, hidden: 256, kvDtype: "f32", window, prefixVisual: 256, threads };
  const sorted = [...lengths].sort((a, b) => a - b);
  for (const attention of ["full", "rswa"]) {
    const s = decoder.createSession({ attention: attention === "rswa" ? { kind: "rswa", window } : { kind: "full" } });
    await s.prefill(prefixFor(decoder, 256, 7));
    let done = 1; // the first token comes from the prefill's logits
    await generate(s, 1);
    for (const L of sorted) {
      const span = Math.min(128, L - done);
      if (L - span > done) await generate(s, L - span - done);
      const t = await timed(s, span);
      done = L;
      const kvBytes = s.stats().cacheBytes;
      result.window.push({ attention, outputTokens: L, decodeTokPerS: t.decodeTokPerS, kvBytes });
      log(`window: ${attention} at ${L} tokens: ${t.decodeTokPerS.toFixed(0)} tok/s, KV ${(kvBytes / 2 ** 20).toFixed(1)} MiB`);
    }
    s.dispose();
  }
}

/** The pages the accuracy rows read: [pdf, page, truth text]. */
function accuracyPagesList() {
  const out = [];
  if (synthDir && existsSync(synthDir)) {
    const docs = readdirSync(synthDir)
      .filter((f) => /^doc-\d+\.pdf$/.test(f))
      .sort();
    for (const f of docs.slice(0, accuracyPages)) {
      const truth = JSON.parse(readFileSync(path.join(synthDir, f.replace(/\.pdf$/, ".json")), "utf8"));
      out.push({ set: "synthetic", pdf: path.join(synthDir, f), page: 1, truth: truth.pages[0].markdown });
    }
  } else if (synthDir) log(`accuracy: ${synthDir} is missing (scripts/synth/make-datasets.sh builds it); synthetic rows skipped`);
  else log("accuracy: no synthetic test set (give --synth DIR or set OCR_DATA); synthetic rows skipped");
  for (const [file, page] of [
    ["r-doc-pdf--R-lang.pdf", 7],
    ["texlive-latex-base-doc--longtable.pdf", 3],
  ].slice(0, Math.max(1, accuracyPages / 2))) {
    const pdf = path.join(realDir, file);
    if (!existsSync(pdf)) continue;
    const truth = execFileSync("pdftotext", ["-f", String(page), "-l", String(page), pdf, "-"], { encoding: "utf8" });
    out.push({ set: "real", pdf, page, truth });
  }
  return out;
}

function cer(hyp, ref) {
  return editDistance(hyp, ref) / Math.max(1, ref.length);
}

function readPage(p, extra) {
  return execFileSync(
    process.execPath,
    [
      path.join(repo, "bin/ocr.js"),
      "parse",
      p.pdf,
      "--pages",
      String(p.page),
      "--stdout",
      "--quiet",
      "--model",
      modelDir,
      "--threads",
      String(threads),
      ...extra,
    ],
    { encoding: "utf8", maxBuffer: 1 << 26 },
  );
}

if (!flag("--skip-accuracy")) {
  const pages = accuracyPagesList();
  const sums = {};
  const add = (set, keep, truth, c, seconds) => {
    for (const key of [set, "all"]) {
      const s = (sums[`${key}\t${keep}`] ??= { set: key, keep, pages: 0, chars: 0, errors: 0, seconds: 0 });
      s.pages++;
      s.chars += truth.length;
      s.errors += c * truth.length;
      s.seconds += seconds;
    }
  };
  for (const p of pages) {
    const truth = plainText(p.truth);
    for (const keep of [0, ...accuracyKeeps]) {
      const t0 = performance.now();
      const c = cer(plainText(readPage(p, keep ? ["--focal-keep", String(keep)] : ["--no-focal"])), truth);
      add(p.set, keep, truth, c, (performance.now() - t0) / 1000);
      log(`accuracy: ${path.basename(p.pdf)} p${p.page}: ${keep ? `keep ${keep}` : "unpruned"} CER ${c.toFixed(4)}`);
    }
  }
  if (Object.keys(sums).length) {
    const cell = (set, keep) => sums[`${set}\t${keep}`];
    const rows = [];
    for (const set of [...new Set(Object.values(sums).map((s) => s.set))])
      for (const keep of accuracyKeeps) {
        const full = cell(set, 0),
          focal = cell(set, keep);
        rows.push({
          set,
          keep,
          pages: full.pages,
          cerUnpruned: full.errors / full.chars,
          cerFocal: focal.errors / focal.chars,
          secondsPerPageUnpruned: full.seconds / full.pages,
          secondsPerPageFocal: focal.seconds / focal.pages,
        });
      }
    const all = rows.find((r) => r.set === "all" && r.keep === accuracyKeeps[0]);
    result.accuracy = { keep: accuracyKeeps[0], model: modelDir, cerUnpruned: all.cerUnpruned, cerFocal: all.cerFocal, rows };
  }
}

if (json) {
  process.stdout.write(JSON.stringify(result) + "\n");
} else {
  const pad = (s, n) => String(s).padStart(n);
  const out = [];
  if (result.focal.length) {
    const m = result.model.focal;
    out.push(
      `Focal pruning: attention per decode step (decoder timer), random decoder with DeepSeek-OCR attention shape (${m.layers} layers, ${m.heads} heads x ${m.headDim}, f32 KV), ${m.focalLayers} focal layers, warm-up ${m.warmup}, ${m.threads} threads, ${m.kernels}; median of ${m.rounds} rounds of ${m.steps} steps`,
    );
    out.push(
      `${pad("visual", 7)} ${pad("keep", 5)} ${pad("full ms", 9)} ${pad("focal ms", 9)} ${pad("speed-up", 8)} ${pad("full tok/s", 10)} ${pad("focal tok/s", 11)}`,
    );
    for (const r of result.focal)
      out.push(
        `${pad(r.visualTokens, 7)} ${pad(r.keep, 5)} ${pad(r.fullAttnMsPerStep.toFixed(2), 9)} ${pad(r.attnMsPerStep.toFixed(2), 9)} ${pad((r.fullAttnMsPerStep / r.attnMsPerStep).toFixed(2) + "x", 8)} ${pad(r.fullDecodeTokPerS.toFixed(1), 10)} ${pad(r.decodeTokPerS.toFixed(1), 11)}`,
      );
    out.push("");
  }
  if (result.window.length) {
    const m = result.model.window;
    out.push(
      `Full attention vs R-SWA(${m.window}): decode tokens/s (last 128 steps) and KV cache bytes vs output length (${m.layers} layers, ${m.heads} heads x ${m.headDim}, ${m.prefixVisual} visual tokens)`,
    );
    out.push(`${pad("tokens", 7)} ${pad("full tok/s", 10)} ${pad("rswa tok/s", 10)} ${pad("full KV MiB", 11)} ${pad("rswa KV MiB", 11)}`);
    for (const L of [...new Set(result.window.map((r) => r.outputTokens))]) {
      const f = result.window.find((r) => r.attention === "full" && r.outputTokens === L);
      const w = result.window.find((r) => r.attention === "rswa" && r.outputTokens === L);
      out.push(
        `${pad(L, 7)} ${pad(f ? f.decodeTokPerS.toFixed(0) : "-", 10)} ${pad(w ? w.decodeTokPerS.toFixed(0) : "-", 10)} ${pad(f ? (f.kvBytes / 2 ** 20).toFixed(2) : "-", 11)} ${pad(w ? (w.kvBytes / 2 ** 20).toFixed(2) : "-", 11)}`,
      );
    }
    out.push("");
  }
  if (result.accuracy) {
    const a = result.accuracy;
    out.push(`Accuracy retained with focal pruning vs unpruned, ${a.model} through ocr parse (1 - CER ratio; target >= 98 % at keep 0.05)`);
    out.push(
      `${pad("set", 10)} ${pad("keep", 5)} ${pad("pages", 5)} ${pad("CER full", 9)} ${pad("CER focal", 9)} ${pad("retained", 8)} ${pad("s/page full", 11)} ${pad("s/page focal", 12)}`,
    );
    for (const r of a.rows)
      out.push(
        `${pad(r.set, 10)} ${pad(r.keep, 5)} ${pad(r.pages, 5)} ${pad((r.cerUnpruned * 100).toFixed(2) + "%", 9)} ${pad((r.cerFocal * 100).toFixed(2) + "%", 9)} ${pad((((1 - r.cerFocal) / (1 - r.cerUnpruned)) * 100).toFixed(1) + "%", 8)} ${pad(r.secondsPerPageUnpruned.toFixed(1), 11)} ${pad(r.secondsPerPageFocal.toFixed(1), 12)}`,
      );
  } else {
    out.push("Accuracy retained: not measured in this run (--skip-accuracy, or no pages found)");
  }
  process.stdout.write(out.join("\n") + "\n");
}
