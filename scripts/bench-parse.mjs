// `ocr bench parse`: ocr parse (default model) vs Tesseract 5 on the same pages — CER, word F1, s/page, pages/min,
// peak RSS per document — and our peak RSS / tokens/s against the page count of one streaming pass. Needs npm run build.
// `ocr bench parse --real` is the real-document dev benchmark instead (bench/real, scripts/bench-real/run.mjs).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { onJsonLines, pageCapLabel, procMemory } from "./bench-common.mjs";
import { pageScores } from "./cer.mjs";
import { dataDefault } from "./data-dir.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
if (process.argv.slice(2).includes("--real")) {
  const { main } = await import("./bench-real/run.mjs");
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`ocr bench parse --real: ${e.message}\n`);
    process.exitCode = 1;
  }
  process.exit();
}
// `--json FILE` writes the JSON to FILE; a bare `--json` prints it
const argv = process.argv.slice(2);
const jsonAt = argv.indexOf("--json");
const jsonOut = jsonAt >= 0 && argv[jsonAt + 1] !== undefined && !argv[jsonAt + 1].startsWith("--") ? argv.splice(jsonAt + 1, 1)[0] : null;
const { values: o } = parseArgs({
  args: argv,
  options: {
    json: { type: "boolean" },
    synth: { type: "string", ...(dataDefault("synth", "test") ? { default: dataDefault("synth", "test") } : {}) },
    shared: { type: "string", default: path.resolve(root, "../shared/data/real") },
    docs: { type: "string", default: "6" },
    "max-tokens": { type: "string" }, // default: the model's own page cap, as a user gets it
    "scale-pages": { type: "string", default: "100" },
    "scale-max-tokens": { type: "string", default: "64" },
    threads: { type: "string", default: "1" },
    model: { type: "string" },
    "skip-tesseract": { type: "boolean" },
    "skip-scale": { type: "boolean" },
    "skip-quality": { type: "boolean" },
    // prints the tables of an earlier --json run without running anything
    from: { type: "string" },
  },
});
const log = (s) => process.stderr.write(s + "\n");
const bin = path.join(root, "bin/ocr.js");
if (!existsSync(path.join(root, "dist/input/index.js"))) {
  log("ocr bench parse: run `npm run build` first (dist/ is missing)");
  process.exit(3);
}
const { openDocument } = await import(path.join(root, "dist/input/index.js"));
const sharp = (await import("sharp")).default;
const work = mkdtempSync(path.join(tmpdir(), "ocr-bench-parse-"));

/** Runs a command under /usr/bin/time -v at low priority (training may share the machine); wall s and peak RSS. */
function timed(cmd, args, env = {}) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn("nice", ["-n", "10", "/usr/bin/time", "-v", cmd, ...args], { env: { ...process.env, CI: "1", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => {
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      resolve({ code, stdout, stderr, seconds: (performance.now() - started) / 1000, peakMiB: rss ? Number(rss[1]) / 1024 : NaN });
    });
  });
}

/** The evaluation set: [{ name, set, file, pages: [n…], truth }] */
function collect() {
  const docs = [];
  const n = Number(o.docs);
  if (o.synth && existsSync(o.synth)) {
    const jsons = readdirSync(o.synth)
      .filter((f) => /^doc-\d+\.json$/.test(f))
      .sort()
      .slice(0, n);
    for (const j of jsons) {
      const meta = JSON.parse(readFileSync(path.join(o.synth, j), "utf8"));
      const file = path.join(o.synth, j.replace(/\.json$/, ".pdf"));
      if (!existsSync(file)) continue;
      docs.push({
        name: j.replace(/\.json$/, ""),
        set: `synth-${meta.lang}`,
        file,
        pages: meta.pages.map((_, i) => i + 1),
        truth: meta.pages.map((p) => p.markdown).join("\n\n"),
      });
    }
  } else if (o.synth) log(`ocr bench parse: no synthetic test set at ${o.synth} (scripts/synth/make-datasets.sh builds it); skipped`);
  else log("ocr bench parse: no synthetic test set (give --synth DIR or set OCR_DATA; scripts/synth/make-datasets.sh builds it); skipped");
  const debian = path.join(o.shared, "debian");
  if (existsSync(debian)) {
    for (const f of readdirSync(debian)
      .filter((f) => f.endsWith(".pdf"))
      .sort()) {
      const file = path.join(debian, f);
      const truth = spawnSyncText("pdftotext", ["-f", "1", "-l", "1", "-enc", "UTF-8", file, "-"]);
      docs.push({ name: f.replace(/\.pdf$/, ""), set: "debian p1", file, pages: [1], truth });
    }
  }
  const docling = path.join(o.shared, "docling");
  if (existsSync(docling)) {
    // single-page documents only: their ground truth is one page
    for (const base of ["2305.03393v1-pg9", "amt_handbook_sample", "code_and_formula"]) {
      const file = path.join(docling, `${base}.pdf`);
      const md = path.join(docling, `${base}.groundtruth.md`);
      if (existsSync(file) && existsSync(md)) docs.push({ name: base, set: "docling", file, pages: [1], truth: readFileSync(md, "utf8") });
    }
  }
  return docs;
}

function spawnSyncText(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 1 << 26 });
  return r.status === 0 ? r.stdout : "";
}

async function ours(doc) {
  const out = path.join(work, "ours", doc.name);
  const args = [
    bin,
    "parse",
    doc.file,
    "-o",
    out,
    "--format",
    "json",
    "--pages",
    doc.pages.join(","),
    ...(o["max-tokens"] ? ["--max-tokens", o["max-tokens"]] : []),
    "--threads",
    o.threads,
    "-q",
  ];
  if (o.model) args.push("--model", o.model);
  const r = await timed(process.execPath, args);
  const jsonFile = path.join(out, readdirSync(out, { recursive: true }).find((f) => String(f).endsWith(".json")) ?? "missing.json");
  if (!existsSync(jsonFile)) return { ...r, text: "", failed: true, error: r.stderr.split("\n").find((l) => l.startsWith("ocr:")) };
  const record = JSON.parse(readFileSync(jsonFile, "utf8"));
  const tokens = record.pages.reduce((s, p) => s + p.tokenCount, 0);
  const decodeMs = record.pages.reduce((s, p) => s + (p.timings.decode ?? 0), 0);
  return {
    ...r,
    text: record.pages.map((p) => p.markdown).join("\n\n"),
    truncated: record.pages.filter((p) => p.truncated).length,
    tokens,
    tokensPerSecond: decodeMs ? tokens / (decodeMs / 1000) : 0,
  };
}

async function tesseract(doc) {
  const document = await openDocument(readFileSync(doc.file), { name: doc.file });
  let text = "";
  let seconds = 0;
  let peakMiB = 0;
  try {
    for (const n of doc.pages) {
      // the same rasteriser and DPI as ocr parse, so both read the same pixels
      const page = await document.renderPage(n, { dpi: 150, maxPixels: 50_000_000 });
      const png = path.join(work, `${doc.name}-p${n}.png`);
      await sharp(page.data, { raw: { width: page.width, height: page.height, channels: 3 } })
        .png()
        .toFile(png);
      const r = await timed("tesseract", [png, "-", "--psm", "3"], { OMP_THREAD_LIMIT: "1" });
      text += r.stdout + "\n\n";
      seconds += r.seconds;
      peakMiB = Math.max(peakMiB, r.peakMiB);
    }
  } finally {
    await document.close();
  }
  return { text, seconds, peakMiB };
}

const result = o.from
  ? JSON.parse(readFileSync(o.from, "utf8"))
  : {
      settings: {
        maxTokens: o["max-tokens"] ? Number(o["max-tokens"]) : "model",
        scaleMaxTokens: Number(o["scale-max-tokens"]),
        threads: Number(o.threads),
        model: o.model ?? "models/default",
      },
      documents: [],
      overall: {},
      scaling: [],
    };
if (!o.from)
  try {
    if (!o["skip-quality"]) {
      const docs = collect();
      const totals = {
        ours: { errors: 0, refChars: 0, common: 0, hyp: 0, ref: 0, seconds: 0, pages: 0, peak: 0 },
        tess: { errors: 0, refChars: 0, common: 0, hyp: 0, ref: 0, seconds: 0, pages: 0, peak: 0 },
      };
      for (const doc of docs) {
        log(`bench parse: ${doc.set} ${doc.name} (${doc.pages.length} page${doc.pages.length > 1 ? "s" : ""})`);
        const a = await ours(doc);
        const sa = pageScores(a.text, doc.truth);
        const row = {
          document: doc.name,
          set: doc.set,
          pages: doc.pages.length,
          ours: {
            cer: sa.cer,
            wordF1: sa.wordF1,
            secondsPerPage: a.seconds / doc.pages.length,
            peakRssMiB: a.peakMiB,
            truncatedPages: a.truncated ?? null,
            tokensPerSecond: a.tokensPerSecond ?? null,
            failed: !!a.failed,
          },
          tesseract: null,
        };
        const add = (t, s, seconds, peak) => {
          t.errors += s.errors;
          t.refChars += s.refChars;
          t.common += s.common;
          t.hyp += s.hypWords;
          t.ref += s.refWords;
          t.seconds += seconds;
          t.pages += doc.pages.length;
          t.peak = Math.max(t.peak, peak);
        };
        add(totals.ours, sa, a.seconds, a.peakMiB);
        if (!o["skip-tesseract"]) {
          const b = await tesseract(doc);
          const sb = pageScores(b.text, doc.truth);
          row.tesseract = { cer: sb.cer, wordF1: sb.wordF1, secondsPerPage: b.seconds / doc.pages.length, peakRssMiB: b.peakMiB };
          add(totals.tess, sb, b.seconds, b.peakMiB);
        }
        result.documents.push(row);
      }
      const overall = (t) => {
        const p = t.hyp ? t.common / t.hyp : 0;
        const r = t.ref ? t.common / t.ref : 0;
        return {
          pages: t.pages,
          cer: t.refChars ? t.errors / t.refChars : 0,
          wordF1: p + r ? (2 * p * r) / (p + r) : 0,
          secondsPerPage: t.pages ? t.seconds / t.pages : 0,
          pagesPerMinute: t.seconds ? (60 * t.pages) / t.seconds : 0,
          peakRssMiB: t.peak,
        };
      };
      result.overall = { ours: overall(totals.ours), tesseract: o["skip-tesseract"] ? null : overall(totals.tess) };
    }
    if (!o["skip-scale"]) result.scaling = await scaling(Number(o["scale-pages"]));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }

/** One streaming pass over an N-page PDF; peak RSS (VmHWM) and tokens/s read as pages 1, 10, 50, 100 finish. */
async function scaling(total) {
  const { PDFDocument } = await import("pdf-lib");
  const sources =
    o.synth && existsSync(o.synth)
      ? readdirSync(o.synth)
          .filter((f) => f.endsWith(".pdf"))
          .sort()
          .map((f) => path.join(o.synth, f))
      : [path.join(root, "fixtures/docs/multi_page.pdf")];
  const big = await PDFDocument.create();
  for (let i = 0; big.getPageCount() < total; i++) {
    const src = await PDFDocument.load(readFileSync(sources[i % sources.length]));
    for (const page of await big.copyPages(src, src.getPageIndices())) if (big.getPageCount() < total) big.addPage(page);
  }
  const file = path.join(work, `scale-${total}.pdf`);
  writeFileSync(file, await big.save());
  log(`bench parse: scaling, one pass over ${total} pages (--max-tokens ${o["scale-max-tokens"]})`);
  const marks = [1, 10, 50, 100, 200, 500].filter((m) => m <= total);
  const args = [
    bin,
    "parse",
    file,
    "-o",
    path.join(work, "scale-out"),
    "--format",
    "json",
    "--jsonl",
    "--max-tokens",
    o["scale-max-tokens"],
    "--threads",
    o.threads,
  ];
  if (o.model) args.push("--model", o.model);
  const child = spawn("nice", ["-n", "10", process.execPath, ...args], { env: { ...process.env, CI: "1" } });
  const rows = [];
  let pages = 0;
  let tokens = 0;
  let decodeSec = 0;
  let cache = { entries: NaN, bytes: NaN };
  const started = performance.now();
  // `nice` execs node, so the child's pid is node's
  const status = () => procMemory(child.pid) ?? { hwm: NaN, rss: NaN };
  onJsonLines(child.stdout, (e) => {
    if (e.type !== "page-done") return;
    pages++;
    tokens += e.tokenCount;
    if (e.tokensPerSecond) decodeSec += e.tokenCount / e.tokensPerSecond;
    if (e.cacheEntries !== undefined) cache = { entries: e.cacheEntries, bytes: e.cacheBytes };
    if (marks.includes(pages)) {
      const s = status();
      rows.push({
        pages,
        peakRssMiB: s.hwm,
        rssMiB: s.rss,
        kvEntries: cache.entries,
        kvMiB: cache.bytes / 2 ** 20,
        tokensPerSecond: decodeSec ? tokens / decodeSec : 0,
        secondsPerPage: (performance.now() - started) / 1000 / pages,
      });
      log(`  after ${pages} pages: peak RSS ${s.hwm.toFixed(0)} MiB, ${(tokens / decodeSec).toFixed(0)} tokens/s`);
    }
  });
  child.stderr.on("data", () => {});
  await new Promise((resolve) => child.on("close", resolve));
  return rows;
}

const pct = (x) => (x == null ? "—" : (100 * x).toFixed(1) + "%");
const num = (x, d = 1) => (x == null || Number.isNaN(x) ? "—" : x.toFixed(d));
if (o.json && !jsonOut) console.log(JSON.stringify(result, null, 2));
else {
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(result, null, 2) + "\n");
  const pad = (s, n) => String(s).padEnd(n);
  const padl = (s, n) => String(s).padStart(n);
  if (result.documents.length) {
    console.log(
      `quality (ours: --max-tokens ${pageCapLabel(result.settings.maxTokens)}, --threads ${result.settings.threads}; Tesseract 5: eng, --psm 3, OMP_THREAD_LIMIT=1; same 150 DPI pixels)`,
    );
    console.log(
      `${pad("document", 34)} ${pad("set", 10)} ${padl("pg", 3)} | ${padl("CER", 7)} ${padl("wordF1", 7)} ${padl("s/pg", 6)} ${padl("RSS MiB", 8)} ${padl("trunc", 5)} | ${padl("tess CER", 8)} ${padl("wordF1", 7)} ${padl("s/pg", 6)} ${padl("RSS MiB", 8)}`,
    );
    for (const r of result.documents) {
      const t = r.tesseract;
      console.log(
        `${pad(r.document.slice(0, 34), 34)} ${pad(r.set.slice(0, 10), 10)} ${padl(r.pages, 3)} | ${padl(pct(r.ours.cer), 7)} ${padl(num(r.ours.wordF1, 3), 7)} ${padl(num(r.ours.secondsPerPage), 6)} ${padl(num(r.ours.peakRssMiB, 0), 8)} ${padl(r.ours.truncatedPages ?? "—", 5)} | ${padl(pct(t?.cer), 8)} ${padl(num(t?.wordF1, 3), 7)} ${padl(num(t?.secondsPerPage), 6)} ${padl(num(t?.peakRssMiB, 0), 8)}`,
      );
    }
    console.log("");
    console.log(
      `${pad("overall", 12)} ${padl("pages", 5)} ${padl("CER", 7)} ${padl("wordF1", 7)} ${padl("s/page", 7)} ${padl("pages/min", 9)} ${padl("peak RSS MiB", 12)}`,
    );
    for (const [name, v] of [
      ["ocr parse", result.overall.ours],
      ["tesseract", result.overall.tesseract],
    ]) {
      if (v)
        console.log(
          `${pad(name, 12)} ${padl(v.pages, 5)} ${padl(pct(v.cer), 7)} ${padl(num(v.wordF1, 3), 7)} ${padl(num(v.secondsPerPage, 2), 7)} ${padl(num(v.pagesPerMinute), 9)} ${padl(num(v.peakRssMiB, 0), 12)}`,
        );
    }
  }
  if (result.scaling.length) {
    console.log("");
    console.log(
      `scaling: one streaming pass (--max-tokens ${result.settings.scaleMaxTokens ?? o["scale-max-tokens"]}), read as pages finish`,
    );
    console.log(
      `${padl("pages", 5)} ${padl("peak RSS MiB", 12)} ${padl("RSS MiB", 8)} ${padl("KV entries", 10)} ${padl("KV MiB", 7)} ${padl("tokens/s", 9)} ${padl("s/page", 7)}`,
    );
    for (const r of result.scaling)
      console.log(
        `${padl(r.pages, 5)} ${padl(num(r.peakRssMiB, 0), 12)} ${padl(num(r.rssMiB, 0), 8)} ${padl(r.kvEntries ?? "—", 10)} ${padl(num(r.kvMiB, 1), 7)} ${padl(num(r.tokensPerSecond, 0), 9)} ${padl(num(r.secondsPerPage, 2), 7)}`,
      );
  }
}
