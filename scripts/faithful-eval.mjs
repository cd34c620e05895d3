#!/usr/bin/env node
// Faithful characters (src/engines/model/faithful.ts), measured: per page, the recogniser's own greedy reading (its lines in
// the model's reading order), the decoder alone, and the merge, all from one `ocr parse` run (OCR_FAITHFUL_TRACE
// records every line's evidence, the decoder's Markdown and the merge; the decoder never sees the merge, so its
// reading is the one a run without the merge gives), plus Tesseract, scored as page images against the truth.
//
//   node scripts/faithful-eval.mjs real  WORK        render the dev pages (pdftoppm -r 150), run the model and
//                                                    Tesseract, print CER and foreign-script characters per page
//   node scripts/faithful-eval.mjs synth WORK DIR... synthetic pages (scripts/synth: DIR/doc-*-pN.png + doc-*.json)
//   node scripts/faithful-eval.mjs tune  WORK DIR... the merge re-run offline from a synth run's trace over a grid of
//                                                    thresholds (choose them here, on training-type pages only)
//   node scripts/faithful-eval.mjs bound WORK [DIR...] where the merge's remaining errors sit (by provenance): what a
//                                                    decoder constrained to the evidence could still change
// Options: --skip-run (reuse WORK's trace and Tesseract output), --pages a,b (real: only these page names).
// CER = edit distance / truth length on plain text (Markdown stripped, whitespace normalised, scripts/cer.mjs).
// "foreign" = letters of a script (Cyrillic; Greek, CJK, …) that the page's truth has none of.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { editDistance, foreignLetters, numbersRead, plainText } from "./cer.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const faithful = await import(path.join(root, "dist/engines/model/faithful.js"));
const REAL = "/work/shared/data/real";

/** The dev pages: [name, pdf, page, kind, tesseract language]. Evaluation only: nothing is tuned on them. */
const REAL_PAGES = [
  ["R-lang-p7", "debian/r-doc-pdf--R-lang.pdf", 7, "prose", "eng"],
  ["R-lang-p20", "debian/r-doc-pdf--R-lang.pdf", 20, "prose", "eng"],
  ["R-lang-p35", "debian/r-doc-pdf--R-lang.pdf", 35, "prose", "eng"],
  ["lshort-es-p17", "debian/texlive-lang-spanish--lshort-a4.pdf", 17, "spanish", "spa"],
  ["lshort-es-p40", "debian/texlive-lang-spanish--lshort-a4.pdf", 40, "spanish", "spa"],
  ["longtable-p3", "debian/texlive-latex-base-doc--longtable.pdf", 3, "table", "eng"],
  ["longtable-p10", "debian/texlive-latex-base-doc--longtable.pdf", 10, "table", "eng"],
  ["tabularx-p3", "debian/texlive-latex-base-doc--tabularx.pdf", 3, "table", "eng"],
  ["testmath-p5", "debian/texlive-latex-base-doc--testmath.pdf", 5, "math", "eng"],
  ["docling-2305-pg9", "docling/2305.03393v1-pg9.pdf", 1, "docling", "eng"],
  ["docling-amt", "docling/amt_handbook_sample.pdf", 1, "docling", "eng"],
  ["docling-table", "docling/table_mislabeled_as_picture.pdf", 1, "docling", "eng"],
];

const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { maxBuffer: 1 << 28, encoding: "utf8", ...opts });

const foreign = foreignLetters;
const numbers = numbersRead;

const cer = (text, truth) => editDistance(plainText(text), plainText(truth)) / Math.max(1, plainText(truth).length);

/** Trace lines grouped by page file (source), in line order. */
function readTrace(file) {
  const pages = new Map();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line) continue;
    const t = JSON.parse(line);
    const key = path.basename(t.source).replace(/\.(png|pdf)$/, "");
    if (!pages.has(key)) pages.set(key, []);
    pages.get(key).push(t);
  }
  for (const lines of pages.values()) lines.sort((a, b) => a.line - b.line);
  return pages;
}

/** The three readings of a page from its trace lines; `options` (default: the product's) for the merge (tune). */
function readings(lines, options) {
  const rec = lines.map((l) => l.text).join("\n");
  const dec = lines.map((l) => l.decoded).join("");
  // the merge is re-run with today's code (the trace's own `merged` is what the code of the run wrote)
  const o = options ?? faithful.FAITHFUL_DEFAULTS;
  const ev = lines.map((l) => ({ text: l.text, peaks: l.peaks }));
  const scripts = faithful.pageScripts(ev, o);
  const merged = lines.map((l, i) => faithful.mergeLine(l.decoded, ev[i], scripts, o)).join("");
  return { rec, dec, merged };
}

function parseModel(work, inputDir, trace) {
  const r = spawnSync(
    "node",
    [path.join(root, "bin/ocr.js"), "parse", inputDir, "--include", "*.png", "-o", path.join(work, "out"), "--threads", "2", "-q"],
    { env: { ...process.env, OCR_FAITHFUL_TRACE: trace }, stdio: "inherit" },
  );
  if (r.status !== 0) throw new Error(`ocr parse ${inputDir} failed (exit ${r.status})`);
}

function table(rows, header) {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const fmt = (r) => "| " + r.map((c, i) => String(c).padEnd(w[i])).join(" | ") + " |";
  return [fmt(header), "|" + w.map((x) => "-".repeat(x + 2)).join("|") + "|", ...rows.map(fmt)].join("\n");
}

const f4 = (x) => x.toFixed(4);

async function real(work, opts) {
  const pagesDir = path.join(work, "pages");
  mkdirSync(pagesDir, { recursive: true });
  const chosen = REAL_PAGES.filter((p) => !opts.pages || opts.pages.includes(p[0]));
  for (const [name, pdf, page] of chosen) {
    const png = path.join(pagesDir, `${name}.png`);
    if (!existsSync(png)) {
      run("pdftoppm", [
        "-r",
        "150",
        "-f",
        String(page),
        "-l",
        String(page),
        "-png",
        "-singlefile",
        path.join(REAL, pdf),
        png.replace(/\.png$/, ""),
      ]);
    }
    const truthFile = path.join(work, `${name}.truth.txt`);
    if (!existsSync(truthFile)) {
      const md = path.join(REAL, pdf.replace(/\.pdf$/, ".groundtruth.md"));
      // docling: its pipeline's Markdown (single pages); debian: the page's text layer
      const truth =
        pdf.startsWith("docling/") && existsSync(md)
          ? readFileSync(md, "utf8")
          : run("pdftotext", ["-f", String(page), "-l", String(page), path.join(REAL, pdf), "-"]);
      writeFileSync(truthFile, truth);
    }
  }
  const trace = path.join(work, "trace.jsonl");
  if (!opts.skipRun) {
    writeFileSync(trace, "");
    parseModel(work, pagesDir, trace);
    for (const [name, , , , lang] of chosen)
      writeFileSync(
        path.join(work, `${name}.tess.txt`),
        run("tesseract", [path.join(pagesDir, `${name}.png`), "-", "--psm", "3", "-l", lang], {
          env: { ...process.env, OMP_THREAD_LIMIT: "1" },
          stdio: ["ignore", "pipe", "ignore"],
        }),
      );
  }
  const traced = readTrace(trace);
  const rows = [];
  const byKind = new Map();
  const numTotal = { found: [0, 0, 0, 0], total: 0 };
  for (const [name, , , kind] of chosen) {
    const lines = traced.get(name);
    if (!lines) continue;
    const truth = readFileSync(path.join(work, `${name}.truth.txt`), "utf8");
    const tess = readFileSync(path.join(work, `${name}.tess.txt`), "utf8");
    const r = readings(lines);
    const texts = [r.rec, r.dec, r.merged, tess];
    const c = texts.map((t) => cer(t, truth));
    const fo = texts.map((t) => foreign(t, truth));
    const nums = texts.map((t) => numbers(t, truth));
    rows.push([name, kind, ...c.map(f4), fo.join("/"), `${nums.map((x) => x[0]).join("/")} of ${nums[0][1]}`]);
    nums.forEach((x, i) => {
      numTotal.found[i] += x[0];
      if (i === 0) numTotal.total += x[1];
    });
    if (!byKind.has(kind)) byKind.set(kind, { n: 0, c: [0, 0, 0, 0], fo: [0, 0, 0, 0] });
    const k = byKind.get(kind);
    k.n++;
    c.forEach((x, i) => (k.c[i] += x));
    fo.forEach((x, i) => (k.fo[i] += x));
    writeFileSync(path.join(work, `${name}.readings.json`), JSON.stringify(r, null, 1));
  }
  const all = { n: 0, c: [0, 0, 0, 0], fo: [0, 0, 0, 0] };
  for (const [kind, k] of byKind) {
    rows.push([`mean ${kind}`, `${k.n} p`, ...k.c.map((x) => f4(x / k.n)), k.fo.join("/")]);
    all.n += k.n;
    k.c.forEach((x, i) => (all.c[i] += x));
    k.fo.forEach((x, i) => (all.fo[i] += x));
  }
  rows.push([
    "mean all",
    `${all.n} p`,
    ...all.c.map((x) => f4(x / all.n)),
    all.fo.join("/"),
    `${numTotal.found.join("/")} of ${numTotal.total}`,
  ]);
  console.log(
    table(
      rows.map((r) => (r.length < 8 ? [...r, ""] : r)),
      ["page", "kind", "recogniser", "decoder", "merge", "tesseract", "foreign r/d/m/t", "numbers >= 3 digits r/d/m/t"],
    ),
  );
}

/** Synthetic pages: DIR/doc-XXXXX-pN.png with the truth in DIR/doc-XXXXX.json pages[N-1].markdown. */
function synthTruth(dirs) {
  const truth = new Map();
  for (const dir of dirs)
    for (const f of readdirSync(dir).filter((x) => /^doc-\d+\.json$/.test(x))) {
      const doc = JSON.parse(readFileSync(path.join(dir, f), "utf8"));
      doc.pages.forEach((p, k) => truth.set(`${f.replace(/\.json$/, "")}-p${k + 1}`, { md: p.markdown, lang: doc.lang ?? "" }));
    }
  return truth;
}

function langOf(md) {
  return /[\u0400-\u04ff]/.test(md) ? "cyrillic" : /[À-ÿ]/.test(md) ? "accented" : "english";
}

function synthScores(traced, truth, options) {
  const acc = new Map();
  for (const [name, lines] of traced) {
    const t = truth.get(name);
    if (!t) continue;
    const r = readings(lines, options);
    const kind = langOf(t.md);
    if (!acc.has(kind)) acc.set(kind, { n: 0, chars: 0, err: [0, 0, 0], fo: [0, 0, 0], pages: [] });
    const a = acc.get(kind);
    const len = plainText(t.md).length;
    const errs = [r.rec, r.dec, r.merged].map((x) => editDistance(plainText(x), plainText(t.md)));
    a.n++;
    a.chars += len;
    errs.forEach((e, i) => (a.err[i] += e));
    [r.rec, r.dec, r.merged].forEach((x, i) => (a.fo[i] += foreign(x, t.md)));
    a.pages.push([name, ...errs.map((e) => f4(e / Math.max(1, len)))]);
  }
  return acc;
}

async function synth(work, dirs, opts) {
  const trace = path.join(work, "trace.jsonl");
  mkdirSync(work, { recursive: true });
  if (!opts.skipRun) {
    writeFileSync(trace, "");
    for (const d of dirs) parseModel(work, d, trace);
  }
  const acc = synthScores(readTrace(trace), synthTruth(dirs));
  const rows = [];
  for (const [kind, a] of acc) {
    for (const p of a.pages) rows.push([...p, ""]);
    rows.push([`all ${kind} (${a.n} p, ${a.chars} chars)`, ...a.err.map((e) => f4(e / a.chars)), a.fo.join("/")]);
  }
  console.log(table(rows, ["page", "recogniser", "decoder", "merge", "foreign r/d/m"]));
}

async function tune(work, dirs) {
  const traced = readTrace(path.join(work, "trace.jsonl"));
  const truth = synthTruth(dirs);
  const rows = [];
  const grid = [];
  for (const confident of [0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 1.01])
    for (const punctuation of [false, true])
      for (const spaces of ["none", "marks", "letters"]) grid.push({ confident, punctuation, spaces });
  for (const latinShare of [0.05, 0.1, 0.2, 0.3, 0.4]) grid.push({ latinShare });
  for (const empty of [false, true]) grid.push({ empty });
  for (const restore of ["word", "line"])
    for (const punctuation of [false, true]) for (const spaces of ["none", "marks", "letters"]) grid.push({ restore, punctuation, spaces });
  for (const g of grid) {
    const options = { ...faithful.FAITHFUL_DEFAULTS, ...g };
    const acc = synthScores(traced, truth, options);
    const row = [options.confident, options.latinShare, `${+options.punctuation} ${options.spaces} ${+options.empty} ${options.restore}`];
    let e = 0,
      c = 0,
      fo = 0;
    for (const [kind, a] of [...acc].sort()) {
      row.push(`${kind} ${f4(a.err[2] / a.chars)}`);
      e += a.err[2];
      c += a.chars;
      fo += a.fo[2];
    }
    rows.push([...row, f4(e / c), fo]);
  }
  console.log(
    table(rows, ["confident", "latinShare", "punct,spaces,empty,restore", "a", "b", "c", "d", "all", "foreign"].slice(0, rows[0].length)),
  );
}

/** Levenshtein alignment of a and b as [index in a or -1, index in b or -1] pairs. */
function alignPairs(a, b) {
  const n = a.length,
    m = b.length,
    W = m + 1;
  const dir = new Uint8Array((n + 1) * W);
  let prev = new Int32Array(W).map((_, j) => j),
    cur = new Int32Array(W);
  for (let j = 1; j <= m; j++) dir[j] = 2;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    dir[i * W] = 1;
    for (let j = 1; j <= m; j++) {
      const sub = prev[j - 1] + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1),
        del = prev[j] + 1,
        ins = cur[j - 1] + 1;
      if (sub <= del && sub <= ins) {
        cur[j] = sub;
        dir[i * W + j] = 0;
      } else if (del <= ins) {
        cur[j] = del;
        dir[i * W + j] = 1;
      } else {
        cur[j] = ins;
        dir[i * W + j] = 2;
      }
    }
    [prev, cur] = [cur, prev];
  }
  const pairs = [];
  let i = n,
    j = m;
  while (i > 0 || j > 0) {
    const d = dir[i * W + j];
    if (i > 0 && j > 0 && d === 0) pairs.push([--i, --j]);
    else if (i > 0 && (j === 0 || d === 1)) pairs.push([--i, -1]);
    else pairs.push([-1, --j]);
  }
  return pairs.reverse();
}

/**
 * Where the merge's remaining errors sit: the merged page's characters, tagged by provenance (mergeLineTagged), are
 * aligned with the truth and each error is charged to the tag of the merged character it involves (a truth character
 * the merge lacks: "missing"). Errors on the decoder's characters over weak evidence ("w") are the only ones a decoder
 * constrained to the evidence would still choose freely; "near" counts those within 3 characters after a correction
 * (r, x) in the same word: what conditioning the decoder on the corrected text could change.
 */
function bound(pages) {
  const total = { chars: 0, err: 0, byTag: {}, near: 0 };
  for (const { lines, truth } of pages) {
    const ev = lines.map((l) => ({ text: l.text, peaks: l.peaks }));
    const scripts = faithful.pageScripts(ev);
    let text = "",
      tags = "";
    lines.forEach((l, i) => {
      const m = faithful.mergeLineTagged(l.decoded, ev[i], scripts);
      text += m.text;
      tags += m.tags;
    });
    // structure and whitespace -> one space, as plainText does
    let a = "",
      at = "";
    for (let k = 0; k < text.length; k++) {
      const space = tags[k] === "S" || /\s/.test(text[k]);
      if (space) {
        if (a.length && a.at(-1) !== " ") {
          a += " ";
          at += "S";
        }
      } else {
        const c = text[k].normalize("NFKC");
        a += c;
        at += tags[k].repeat(c.length);
      }
    }
    // the tags carried over (by alignment) to the page's plainText, which is what CER scores
    const plain = plainText(text);
    const carried = [];
    for (const [x, y] of alignPairs(a, plain)) if (y >= 0) carried[y] = x >= 0 ? at[x] : "S";
    a = plain;
    at = Array.from({ length: plain.length }, (_, k) => carried[k] ?? "S").join("");
    const b = plainText(truth);
    total.chars += b.length;
    const charge = (t, k) => {
      total.err++;
      total.byTag[t] = (total.byTag[t] ?? 0) + 1;
      if (t === "w" && k >= 0) {
        for (let q = k - 1; q >= Math.max(0, k - 3) && a[q] !== " "; q--)
          if (at[q] === "r" || at[q] === "x") {
            total.near++;
            break;
          }
      }
    };
    // each edit of the alignment charged once, from the end as the backtrace finds them: a substitution or an extra
    // character to its merged character's tag, a truth character the merge lacks as "missing"
    for (const [x, y] of alignPairs(a, b).reverse()) {
      if (x >= 0 && y >= 0) {
        if (a[x] !== b[y]) charge(at[x], x);
      } else if (x >= 0) charge(at[x], x);
      else charge("missing", -1);
    }
  }
  return total;
}

async function boundMode(work, dirs) {
  const traced = readTrace(path.join(work, "trace.jsonl"));
  const pages = [];
  if (dirs.length) {
    const truth = synthTruth(dirs);
    for (const [name, lines] of traced) if (truth.has(name)) pages.push({ lines, truth: truth.get(name).md });
  } else {
    for (const [name, lines] of traced) {
      const f = path.join(work, `${name}.truth.txt`);
      if (existsSync(f)) pages.push({ lines, truth: readFileSync(f, "utf8") });
    }
  }
  const t = bound(pages);
  console.log(`${pages.length} pages, ${t.chars} truth characters, ${t.err} errors after the merge (CER ${f4(t.err / t.chars)})`);
  console.log(
    "errors by provenance (S structure/space, a decoder = sure slot, r sure slot over decoder, x restored, b beyond-recogniser kept, w decoder over weak/no evidence, missing):",
  );
  console.log(JSON.stringify(t.byTag), `w within 3 characters after a correction: ${t.near}`);
}

const [mode, work, ...rest] = process.argv.slice(2);
const opts = { skipRun: rest.includes("--skip-run"), pages: undefined };
const pi = rest.indexOf("--pages");
if (pi >= 0) opts.pages = rest[pi + 1].split(",");
const dirs = rest.filter((x, i) => !x.startsWith("--") && rest[i - 1] !== "--pages");
if (!work || !["real", "synth", "tune", "bound"].includes(mode)) {
  console.error("usage: node scripts/faithful-eval.mjs real|synth|tune|bound WORK [DIR...] [--skip-run] [--pages a,b]");
  process.exit(2);
}
if (mode === "real") await real(path.resolve(work), opts);
else if (mode === "synth") await synth(path.resolve(work), dirs, opts);
else if (mode === "bound") await boundMode(path.resolve(work), dirs);
else await tune(path.resolve(work), dirs);
