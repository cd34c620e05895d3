// `ocr bench parse --real`: the real-document dev benchmark. Every page of bench/real/manifest.json becomes an
// image (poppler's pdftoppm, not our renderer; scan-like pages degraded by degrade.mjs; dataset images as they
// are), read by our model (`ocr parse`, default model, one batch, --threads 1) and by Tesseract 5 (--psm 3, the
// page's language, OMP_THREAD_LIMIT=1) in the same run. Scores per page: CER and word F1 against the truth, and
// the olmOCR-Bench-format unit tests of bench/real/tests.jsonl (scored by unit-tests.mjs, cross-checked with
// ../shared/tools/olmocr-score.mjs when present). Prints a table per kind; --json FILE writes everything.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { pageCapLabel } from "../bench-common.mjs";
import { pageScores } from "../cer.mjs";

export { pageScores };
import { degradation, degrade } from "./degrade.mjs";
import { runTest, TEST_TYPES } from "./unit-tests.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const log = (s) => process.stderr.write(s + "\n");

/** `--json` may carry a file name (`--json out.json`); without one the JSON goes to stdout. */
export function splitJsonArg(argv) {
  const args = [...argv];
  const i = args.indexOf("--json");
  let file = null;
  if (i >= 0 && args[i + 1] !== undefined && !args[i + 1].startsWith("--")) file = args.splice(i + 1, 1)[0];
  return { args, file };
}

/** Micro-averaged figures of a set of page results for one engine. */
export function aggregate(rows, engine) {
  const t = { pages: 0, errors: 0, refChars: 0, common: 0, hyp: 0, ref: 0, seconds: 0, passed: 0, tests: 0 };
  for (const r of rows) {
    const e = r[engine];
    if (!e) continue;
    t.pages++;
    t.errors += e.errors;
    t.refChars += e.refChars;
    t.common += e.common;
    t.hyp += e.hypWords;
    t.ref += e.refWords;
    t.seconds += e.seconds ?? 0;
    t.passed += (e.tests ?? []).filter((x) => x.passed).length;
    t.tests += (e.tests ?? []).length;
  }
  const p = t.hyp ? t.common / t.hyp : 0;
  const rec = t.ref ? t.common / t.ref : 0;
  return {
    pages: t.pages,
    cer: t.refChars ? t.errors / t.refChars : 0,
    wordF1: p + rec ? (2 * p * rec) / (p + rec) : 0,
    testsPassed: t.passed,
    tests: t.tests,
    passRate: t.tests ? t.passed / t.tests : null,
    secondsPerPage: t.pages ? t.seconds / t.pages : 0,
  };
}

function installedTesseractLangs() {
  const r = spawnSync("tesseract", ["--list-langs"], { encoding: "utf8" });
  if (r.error) return null;
  return new Set(
    (r.stdout + r.stderr)
      .split("\n")
      .slice(1)
      .map((l) => l.trim())
      .filter(Boolean),
  );
}

function run(cmd, args, env = {}, cwd = undefined) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn("nice", ["-n", "10", cmd, ...args], { env: { ...process.env, CI: "1", ...env }, cwd });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", (e) => resolve({ code: -1, stdout, stderr: String(e), seconds: 0 }));
    child.on("close", (code) => resolve({ code, stdout, stderr, seconds: (performance.now() - started) / 1000 }));
  });
}

async function renderPage(sharp, page, shared, work) {
  const src = page.file.startsWith("shared:") ? path.join(shared, page.file.slice(7)) : path.join(root, page.file);
  if (!existsSync(src))
    throw new Error(
      `${page.id}: ${src} is missing${page.file.startsWith("shared:") ? " (the shared data folder; pass --shared DIR)" : ""}`,
    );
  const out = path.join(work, "img", `${page.id}.png`);
  const base = out.slice(0, -4);
  const pdftoppm = (args) => {
    const r = spawnSync("pdftoppm", [...args, "-f", String(page.filePage), "-l", String(page.filePage), "-png", "-singlefile", src, base], {
      encoding: "utf8",
    });
    if (r.error) throw new Error("pdftoppm (poppler-utils) is needed to render the dev set: apt-get install poppler-utils");
    if (r.status !== 0) throw new Error(`${page.id}: pdftoppm failed: ${r.stderr.trim()}`);
  };
  let params = null;
  if (page.recipe === "image") writeFileSync(out, readFileSync(src));
  else if (page.recipe === "pdf150") pdftoppm(["-r", "150"]);
  else if (page.recipe === "pdf300gray") pdftoppm(["-r", "300", "-gray"]);
  else if (page.recipe === "scan300") {
    pdftoppm(["-r", "300", "-gray"]);
    const d = await degrade(sharp, readFileSync(out), page.id);
    writeFileSync(out, d.png);
    params = d.params;
  } else throw new Error(`${page.id}: unknown render recipe '${page.recipe}'`);
  const meta = await sharp(out).metadata();
  return { image: out, width: meta.width, height: meta.height, degradation: params };
}

export async function main(argv) {
  const { args, file: jsonFile } = splitJsonArg(argv);
  const { values: o } = parseArgs({
    args,
    options: {
      real: { type: "boolean" },
      json: { type: "boolean" },
      kinds: { type: "string" },
      limit: { type: "string" },
      shared: { type: "string", default: path.resolve(root, "../shared/data/real") },
      "max-tokens": { type: "string" }, // default: the model's own page cap, as a user gets it
      threads: { type: "string", default: "1" },
      model: { type: "string" },
      "skip-tesseract": { type: "boolean" },
      keep: { type: "string" },
      reuse: { type: "boolean" },
      "skip-ours": { type: "boolean" },
      "done-only": { type: "boolean" },
      "compare-order": { type: "boolean" },
      from: { type: "string" },
      // options of the synthetic mode, accepted and ignored here
      synth: { type: "string" },
      docs: { type: "string" },
      "scale-pages": { type: "string" },
      "scale-max-tokens": { type: "string" },
      "skip-scale": { type: "boolean" },
      "skip-quality": { type: "boolean" },
    },
  });
  let result;
  if (o.from) result = JSON.parse(readFileSync(o.from, "utf8"));
  else result = await measure(o);
  if (jsonFile) {
    writeFileSync(jsonFile, JSON.stringify(result, null, 1) + "\n");
    log(`bench parse --real: wrote ${jsonFile}`);
  }
  if (o.json && !jsonFile) console.log(JSON.stringify(result, null, 1));
  else console.log(report(result));
  return 0;
}

async function measure(o) {
  const manifest = JSON.parse(readFileSync(path.join(root, "bench/real/manifest.json"), "utf8"));
  const allTests = readFileSync(path.join(root, "bench/real/tests.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  let pages = manifest.pages;
  if (o.kinds) {
    const want = o.kinds.split(",").map((k) => k.trim());
    const known = new Set(pages.flatMap((p) => p.kinds));
    for (const k of want) if (!known.has(k)) throw new Error(`--kinds: unknown kind '${k}' (known: ${[...known].sort().join(", ")})`);
    pages = pages.filter((p) => p.kinds.some((k) => want.includes(k)));
  }
  if (o.limit) pages = pages.slice(0, Number(o.limit));
  if (o["done-only"]) {
    if (!o.keep) throw new Error("--done-only needs --keep DIR (the folder of an earlier run)");
    const before = pages.length;
    pages = pages.filter((p) => existsSync(path.join(path.resolve(o.keep), "ours", `${p.id}.json`)));
    log(`bench parse --real: --done-only: ${pages.length} of ${before} pages have our output in ${o.keep}`);
  }
  if (!existsSync(path.join(root, "dist"))) throw new Error("run `npm run build` first (dist/ is missing)");
  const sharp = (await import("sharp")).default;
  if (o.reuse && !o.keep) throw new Error("--reuse needs --keep DIR (the folder of an earlier run)");
  const work = o.keep ? path.resolve(o.keep) : mkdtempSync(path.join(tmpdir(), "ocr-bench-real-"));
  mkdirSync(path.join(work, "img"), { recursive: true });
  try {
    log(`bench parse --real: rendering ${pages.length} pages (pdftoppm; scan-like pages degraded)`);
    const images = new Map();
    for (const p of pages) {
      const done = path.join(work, "img", `${p.id}.png`);
      if (o.reuse && existsSync(done)) {
        const meta = await sharp(done).metadata();
        images.set(p.id, {
          image: done,
          width: meta.width,
          height: meta.height,
          degradation: p.recipe === "scan300" ? degradation(p.id) : null,
        });
      } else images.set(p.id, await renderPage(sharp, p, o.shared, work));
    }

    // ours: one batch over the page images (the model loads once); per-page seconds from the JSON's timings
    log(
      `bench parse --real: ocr parse over ${pages.length} images (--threads ${o.threads}, --max-tokens ${o["max-tokens"] ?? "the model's"})`,
    );
    const listFile = path.join(work, "images.txt");
    // ocr parse mirrors a file under its working folder by its path from there: run it in the images' folder, so
    // that PAGE.png is written as ours/PAGE.md wherever --keep lies
    const imgDir = path.join(work, "img");
    const todo = o["skip-ours"] ? [] : pages.filter((p) => !(o.reuse && existsSync(path.join(work, "ours", `${p.id}.json`))));
    writeFileSync(listFile, todo.map((p) => images.get(p.id).image).join("\n") + "\n");
    const oursArgs = [
      path.join(root, "bin/ocr.js"),
      "parse",
      "--files-from",
      listFile,
      "-o",
      path.join(work, "ours"),
      "--format",
      "md,json",
      "--threads",
      o.threads,
      "-q",
    ];
    if (o["max-tokens"]) oursArgs.push("--max-tokens", o["max-tokens"]);
    if (o.model) oursArgs.push("--model", existsSync(o.model) ? path.resolve(o.model) : o.model);
    // every line's recogniser reading (OCR_FAITHFUL_TRACE), for the recogniser-alone column; appended across --reuse runs
    const traceFile = path.join(work, "ours-trace.jsonl");
    if (!o.reuse) rmSync(traceFile, { force: true });
    const oursRun = todo.length
      ? await run(process.execPath, oursArgs, { OCR_FAITHFUL_TRACE: traceFile }, imgDir)
      : { code: 0, seconds: 0, stderr: "" };
    const greedy = recogniserReadings(traceFile);
    if (oursRun.code !== 0)
      log(`bench parse --real: ocr parse exited ${oursRun.code}: ${oursRun.stderr.trim().split("\n").slice(-3).join(" | ")}`);
    // the same pages with XY-cut's reading order, for the layout stages side by side
    let xyRun = null;
    if (o["compare-order"]) {
      const xyTodo = pages.filter((p) => !(o.reuse && existsSync(path.join(work, "ours-learned", `${p.id}.json`))));
      const xyList = path.join(work, "images-learned.txt");
      writeFileSync(xyList, xyTodo.map((p) => images.get(p.id).image).join("\n") + "\n");
      log(`bench parse --real: ocr parse --reading-order learned over ${xyTodo.length} images`);
      const xyArgs = oursArgs.map((a) => (a === listFile ? xyList : a === path.join(work, "ours") ? path.join(work, "ours-learned") : a));
      xyRun = xyTodo.length
        ? await run(process.execPath, [...xyArgs, "--reading-order", "learned"], {}, imgDir)
        : { code: 0, seconds: 0, stderr: "" };
      if (xyRun.code !== 0)
        log(
          `bench parse --real: ocr parse --reading-order learned exited ${xyRun.code}: ${xyRun.stderr.trim().split("\n").slice(-3).join(" | ")}`,
        );
    }

    const langs = o["skip-tesseract"] ? null : installedTesseractLangs();
    if (!o["skip-tesseract"] && !langs)
      log("bench parse --real: tesseract is not installed; its columns stay empty (apt-get install tesseract-ocr)");
    const rows = [];
    for (const p of pages) {
      const truth = readFileSync(path.join(root, p.truth), "utf8");
      const tests = allTests.filter((t) => t.pdf === `${p.id}.pdf`);
      const score = (md, extra) => ({
        ...pageScores(md, truth),
        ...extra,
        tests: tests.map((t) => ({ id: t.id, type: t.type, passed: runTest(t, md)[0], reason: runTest(t, md)[1] })),
      });
      const row = {
        id: p.id,
        kinds: p.kinds,
        lang: p.lang,
        recipe: p.recipe,
        image: { width: images.get(p.id).width, height: images.get(p.id).height, degradation: images.get(p.id).degradation },
        truthPasses: tests.filter((t) => runTest(t, truth)[0]).length,
        tests: tests.length,
      };
      // our output of the page in DIR (NAME.md and NAME.json of ocr parse), scored; an empty page when the run left none
      const ours = (dir) => {
        const mdFile = path.join(work, dir, `${p.id}.md`),
          jsonFile = path.join(work, dir, `${p.id}.json`);
        if (!existsSync(mdFile) || !existsSync(jsonFile)) return { ...score("", { seconds: 0, failed: true }), markdown: "" };
        const md = readFileSync(mdFile, "utf8");
        const page = JSON.parse(readFileSync(jsonFile, "utf8")).pages[0];
        const timings = page?.timings ?? {};
        return {
          ...score(md, { seconds: (timings.total ?? 0) / 1000, timings, tokens: page?.tokenCount ?? 0, truncated: !!page?.truncated }),
          markdown: md,
        };
      };
      row.ours = ours("ours");
      // the recogniser alone: its greedy reading of every line, in our reading order (no tests: the CER row of issue 18)
      const readings = greedy.get(images.get(p.id).image);
      if (readings) row.recogniser = pageScores(readings.join("\n"), truth);
      if (xyRun) row.learned = ours("ours-learned");
      if (langs) {
        const lang = langs.has(p.lang) ? (p.lang === "eng" ? "eng" : `${p.lang}+eng`) : "eng";
        if (!langs.has(p.lang))
          log(`bench parse --real: ${p.id}: tesseract has no '${p.lang}' pack (apt-get install tesseract-ocr-${p.lang}); used eng`);
        const saved = path.join(work, "tesseract", `${p.id}.json`);
        let r;
        if (o.reuse && existsSync(saved)) r = JSON.parse(readFileSync(saved, "utf8"));
        else {
          r = await run("tesseract", [images.get(p.id).image, "-", "--psm", "3", "-l", lang], { OMP_THREAD_LIMIT: "1" });
          mkdirSync(path.dirname(saved), { recursive: true });
          writeFileSync(saved, JSON.stringify({ code: r.code, stdout: r.stdout, seconds: r.seconds }));
        }
        row.tesseract = { ...score(r.stdout, { seconds: r.seconds, lang, failed: r.code !== 0 }), markdown: r.stdout };
      }
      rows.push(row);
      const f = (e) => (e ? `CER ${(100 * e.cer).toFixed(1)}% tests ${e.tests.filter((t) => t.passed).length}/${e.tests.length}` : "—");
      log(`  ${p.id.padEnd(22)} ours ${f(row.ours)} | tesseract ${f(row.tesseract)}`);
    }
    const crossCheck = await crossCheckScorer(rows, allTests);
    return {
      settings: {
        mode: "real",
        doneOnly: !!o["done-only"],
        maxTokens: o["max-tokens"] ? Number(o["max-tokens"]) : "model",
        threads: Number(o.threads),
        model: o.model ?? "models/default",
        tesseract: "--psm 3, -l LANG+eng, OMP_THREAD_LIMIT=1",
        kinds: o.kinds ?? null,
        limit: o.limit ? Number(o.limit) : null,
        oursWallSeconds: oursRun.seconds,
        oursParsed: todo.length,
        date: new Date().toISOString(),
      },
      pages: rows,
      crossCheck,
    };
  } finally {
    if (!o.keep) rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The lines of each traced page (`OCR_FAITHFUL_TRACE` records: source, line, text, peaks, decoded, merged), by image
 * path; a page traced twice (a --reuse run that parsed it again) keeps its last run. Empty without the file.
 */
export function tracedPages(traceFile) {
  const pages = new Map();
  if (!existsSync(traceFile)) return pages;
  for (const l of readFileSync(traceFile, "utf8").split("\n")) {
    if (!l.trim()) continue;
    const r = JSON.parse(l);
    // (a line read in parts, src/vision/lines.ts lineParts, is a record per part, `part` its place: one line, its
    // parts' readings and peaks joined at the spaces cut at, the decoder's and the merge's text as written, its
    // records kept)
    if (r.part > 0) {
      const first = pages.get(r.source)?.[r.line];
      if (first) {
        first.parts.push(r);
        first.text += ` ${r.text}`;
        // (the space cut at: read, sure, with no blank steps before it)
        first.peaks = [...first.peaks, 1, ...r.peaks];
        if (first.gaps && r.gaps) first.gaps = [...first.gaps, 0, ...r.gaps];
        first.decoded += r.decoded;
        first.merged += r.merged;
      }
      continue;
    }
    if ((r.line === 0 && !r.part) || !pages.has(r.source)) pages.set(r.source, []);
    pages.get(r.source)[r.line] = r.part === 0 ? { ...r, parts: [r] } : r;
  }
  return pages;
}

/** The recogniser's own greedy reading of each traced page, line by line (tracedPages), each line with the dot leader
 * found right of it (src/vision/leaders.ts: layout, not the decoder's, so the recogniser's column has it too). */
export function recogniserReadings(traceFile) {
  const line = (r) => (r?.text ?? "") + " .".repeat(r?.leader ?? 0);
  return new Map([...tracedPages(traceFile)].map(([source, lines]) => [source, Array.from(lines, line)]));
}

/** Pass/fail of every test by ../shared/tools/olmocr-score.mjs beside ours, when that tool is present. */
async function crossCheckScorer(rows, allTests) {
  const tool = path.resolve(root, "../shared/tools/olmocr-score.mjs");
  if (!existsSync(tool)) {
    log(`bench parse --real: ${tool} not found; scored with scripts/bench-real/unit-tests.mjs only (no cross-check)`);
    return { tool: null };
  }
  const ref = await import(tool);
  let agree = 0;
  let total = 0;
  const disagreements = [];
  for (const row of rows) {
    for (const engine of ["ours", "tesseract"]) {
      const e = row[engine];
      if (!e) continue;
      for (const t of e.tests) {
        const test = allTests.find((x) => x.id === t.id);
        const theirs = ref.runTest(test, e.markdown)[0];
        total++;
        if (theirs === t.passed) agree++;
        else disagreements.push({ id: t.id, engine, ours: t.passed, olmocrScore: theirs });
      }
    }
  }
  log(`bench parse --real: unit-test scorer agrees with olmocr-score.mjs on ${agree} of ${total} results`);
  return { tool, agree, total, disagreements };
}

const pct = (x) => (x == null || Number.isNaN(x) ? "—" : (100 * x).toFixed(1) + "%");
const num = (x, d = 1) => (x == null || Number.isNaN(x) ? "—" : x.toFixed(d));

/** Pass rate of one test type for one engine over the rows: "57.1% 4/7", or "—" when it has none. */
function typeRate(rows, engine, type) {
  const ts = rows.flatMap((r) => (r[engine] ? r[engine].tests.filter((t) => t.type === type) : []));
  const passed = ts.filter((t) => t.passed).length;
  return ts.length ? `${pct(passed / ts.length)} ${passed}/${ts.length}` : "—";
}

export function report(result) {
  const rows = result.pages;
  const kinds = [...new Set(rows.flatMap((r) => r.kinds))].sort();
  // each kind's pages, then every page once
  const groups = [...kinds.map((k) => [k, rows.filter((r) => r.kinds.includes(k))]), ["overall", rows]];
  const hasTess = rows.some((r) => r.tesseract);
  const pad = (s, n) => String(s).padEnd(n);
  const padl = (s, n) => String(s).padStart(n);
  const lines = [];
  const s = result.settings;
  lines.push(
    `real-document dev set (bench/real): ours = ocr parse (${s.model}, --threads ${s.threads}, --max-tokens ${pageCapLabel(s.maxTokens)}); tesseract 5 (${s.tesseract}); same pixels (pdftoppm)`,
  );
  if (s.doneOnly) lines.push(`partial run: only the ${rows.length} pages our ocr parse batch finished (--done-only)`);
  // pages per minute of the whole batch (model load included), where this run parsed every page: with --threads N a
  // batch reads a document per thread, which the per-page seconds below (each page's own stages) do not show
  if (s.oursParsed === rows.length && s.oursWallSeconds > 0)
    lines.push(
      `ours: ${rows.length} pages in ${num(s.oursWallSeconds, 1)} s of wall clock, ${num((rows.length / s.oursWallSeconds) * 60, 1)} pages/min (--threads ${s.threads}, one ocr parse batch)`,
    );
  lines.push(
    `${pad("kind", 11)} ${padl("pages", 5)} | ${padl("CER", 6)} ${padl("wordF1", 6)} ${padl("tests", 13)} ${padl("s/page", 6)} | ${padl("tess CER", 8)} ${padl("wordF1", 6)} ${padl("tests", 13)} ${padl("s/page", 6)}`,
  );
  const cells = (a) =>
    a
      ? `${padl(pct(a.cer), 6)} ${padl(num(a.wordF1, 3), 6)} ${padl(`${pct(a.passRate)} ${a.testsPassed}/${a.tests}`, 13)} ${padl(num(a.secondsPerPage), 6)}`
      : "";
  const line = (name, rs) => {
    const a = aggregate(rs, "ours");
    const b = hasTess ? aggregate(rs, "tesseract") : null;
    return `${pad(name, 11)} ${padl(rs.length, 5)} | ${cells(a)} | ${b ? cells(b).replace(/^(\s*\S+)/, (m) => m.padStart(8)) : "—"}`;
  };
  for (const k of kinds)
    lines.push(
      line(
        k,
        rows.filter((r) => r.kinds.includes(k)),
      ),
    );
  lines.push(line("overall", rows));
  lines.push("");
  lines.push(
    `unit tests by type (olmOCR-Bench format; truth passes ${rows.reduce((a, r) => a + r.truthPasses, 0)} of ${rows.reduce((a, r) => a + r.tests, 0)})`,
  );
  lines.push(`${pad("type", 9)} ${padl("tests", 5)} | ${padl("ours", 14)} | ${padl("tesseract", 14)}`);
  for (const type of TEST_TYPES) {
    const n = rows.flatMap((r) => (r.ours ? r.ours.tests.filter((t) => t.type === type) : [])).length;
    if (n)
      lines.push(
        `${pad(type, 9)} ${padl(n, 5)} | ${padl(typeRate(rows, "ours", type), 14)} | ${padl(hasTess ? typeRate(rows, "tesseract", type) : "—", 14)}`,
      );
  }
  // faithful characters (issue 18): letters of a script the page's truth lacks, and the truth's numbers of 3+ digits read exactly
  const faithful = (engine, rs) => {
    const es = rs.map((r) => r[engine]).filter(Boolean);
    const found = es.reduce((a, e) => a + (e.numbersFound ?? 0), 0),
      total = es.reduce((a, e) => a + (e.numbers ?? 0), 0);
    return `${padl(
      es.reduce((a, e) => a + (e.foreign ?? 0), 0),
      7,
    )} ${padl(`${pct(total ? found / total : null)} ${found}/${total}`, 15)}`;
  };
  lines.push("");
  lines.push("faithful characters: letters of a script absent from the page's truth; numbers of 3+ digits read exactly");
  lines.push(`${pad("kind", 11)} | ${padl("foreign", 7)} ${padl("numbers", 15)} | ${padl("foreign", 7)} ${padl("tess numbers", 15)}`);
  for (const [name, rs] of groups) lines.push(`${pad(name, 11)} | ${faithful("ours", rs)} | ${hasTess ? faithful("tesseract", rs) : "—"}`);
  if (rows.some((r) => r.recogniser)) {
    // issue 18: on clean born-digital pages, CER no higher than the recogniser's own greedy reading, nor Tesseract's
    const clean = rows.filter((r) => r.recipe === "pdf150" && r.recogniser);
    const cer = (rs, engine) => pct(aggregate(rs, engine).cer);
    lines.push("");
    lines.push("CER beside the recogniser's own greedy reading (its lines in our reading order, no decoder)");
    lines.push(`${pad("pages", 28)} ${padl("n", 3)} | ${padl("ours", 6)} ${padl("recogniser", 10)} ${padl("tesseract", 9)}`);
    for (const [name, rs] of [
      ["clean born-digital (150 dpi)", clean],
      ["  of them Latin script", clean.filter((r) => !r.kinds.includes("cyrillic"))],
      ["all", rows.filter((r) => r.recogniser)],
    ])
      lines.push(
        `${pad(name, 28)} ${padl(rs.length, 3)} | ${padl(cer(rs, "ours"), 6)} ${padl(cer(rs, "recogniser"), 10)} ${padl(hasTess ? cer(rs, "tesseract") : "—", 9)}`,
      );
  }
  lines.push("");
  lines.push("our stage timings, mean ms per page (from ocr parse's JSON)");
  lines.push(`${pad("kind", 11)} ${padl("render", 7)} ${padl("encode", 8)} ${padl("prefill", 8)} ${padl("decode", 8)} ${padl("total", 8)}`);
  const stage = (rs, key) => {
    const xs = rs.map((r) => r.ours?.timings?.[key]).filter((x) => typeof x === "number");
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
  };
  for (const [name, rs] of groups) {
    lines.push(
      `${pad(name, 11)} ${["render", "encode", "prefill", "decode", "total"].map((k, i) => padl(num(stage(rs, k), 0), i ? 8 : 7)).join(" ")}`,
    );
  }
  if (rows.some((r) => r.learned)) {
    lines.push("");
    lines.push("layout stages side by side: ours (the default reading order, XY-cut) and the same model with --reading-order learned");
    lines.push(
      `${pad("kind", 11)} ${padl("pages", 5)} | ${padl("ours CER", 8)} ${padl("tests", 13)} ${padl("s/page", 6)} | ${padl("learned CER", 11)} ${padl("tests", 13)} ${padl("s/page", 6)}`,
    );
    const side = (a) =>
      `${padl(pct(a.cer), 8)} ${padl(`${pct(a.passRate)} ${a.testsPassed}/${a.tests}`, 13)} ${padl(num(a.secondsPerPage), 6)}`;
    for (const [name, rs] of groups)
      lines.push(
        `${pad(name, 11)} ${padl(rs.length, 5)} | ${side(aggregate(rs, "ours"))} | ${side(aggregate(rs, "learned")).replace(/^(\s*\S+)/, (m) => m.padStart(11))}`,
      );
    for (const type of TEST_TYPES)
      if (rows.some((r) => r.ours?.tests.some((t) => t.type === type)))
        lines.push(
          `  ${pad(type + " tests", 12)} ours ${padl(typeRate(rows, "ours", type), 14)} | learned ${padl(typeRate(rows, "learned", type), 14)}`,
        );
  }
  if (result.crossCheck?.tool)
    lines.push(
      `\nscorer cross-check: scripts/bench-real/unit-tests.mjs agrees with olmocr-score.mjs on ${result.crossCheck.agree} of ${result.crossCheck.total} test results`,
    );
  lines.push(
    "pages count under every kind they carry; 'overall' counts each page once. CER/word F1 are micro-averaged (scripts/cer.mjs text).",
  );
  return lines.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    (c) => (process.exitCode = c),
    (e) => {
      log(`ocr bench parse --real: ${e.message}`);
      process.exitCode = 1;
    },
  );
}
