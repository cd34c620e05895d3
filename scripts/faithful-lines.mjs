#!/usr/bin/env node
// A change to the merge (src/engines/model/faithful.ts), measured line by line on the real dev set in seconds: every
// line an `ocr bench parse --real` run traced (KEEP/ours-trace.jsonl: the recogniser's reading, its peaks and
// diacritics, the decoder's Markdown and the merge) is merged again with a build's faithful.js, and each line whose
// merge changes is scored, before and after, against its best window of the page's truth (edit distance, markup
// stripped). The sum over the changed lines estimates the change's effect before a bench run confirms it.
//
//   npm run build   (or: npx tsc -p tsconfig.json --outDir DIR, to measure a variant beside dist/)
//   node scripts/faithful-lines.mjs KEEP/ours-trace.jsonl [--dist DIR] [--show N] [--options JSON]
//
// --options overrides FAITHFUL_DEFAULTS ('{"confident":0.6}'); --show prints the N lines that gain most and lose most.
// Pages of the packages reserved for independent evaluation (scripts/corpus/packages.mjs DENY) are left out: they
// may be scored by the benchmark, never tuned on.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { tracedPages } from "./bench-real/run.mjs";
import { plainText } from "./cer.mjs";
import { DENY } from "./corpus/packages.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The Debian package a dev page comes from (manifest source: a package, or a shared file named PKG--NAME.pdf). */
export function pagePackage(page) {
  if (page.source?.package) return page.source.package;
  const shared = page.source?.shared ?? "";
  return /\/debian\//.test(shared) ? path.basename(shared).split("--")[0] : undefined;
}

/** True when the page may be tuned on: not from a package reserved for independent evaluation. */
export function tunable(page) {
  return !DENY.includes(pagePackage(page) ?? "");
}

/** The edit distance of `a` to its best-matching window of `t` (a line against its page's truth). */
export function windowDistance(a, t) {
  const n = a.length,
    m = t.length;
  let prev = new Int32Array(m + 1);
  let cur = new Int32Array(m + 1);
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    for (let j = 1; j <= m; j++) {
      const s = prev[j - 1] + (a[i - 1] === t[j - 1] ? 0 : 1);
      cur[j] = Math.min(s, prev[j] + 1, cur[j - 1] + 1);
    }
    [prev, cur] = [cur, prev];
  }
  return n === 0 ? 0 : Math.min(...prev);
}

const norm = (s) => plainText(s).replace(/\s+/g, " ").trim();

async function main() {
  const { values: o, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      dist: { type: "string", default: path.join(root, "dist") },
      show: { type: "string", default: "0" },
      options: { type: "string", default: "{}" },
    },
  });
  if (positionals.length !== 1) {
    process.stderr.write("usage: faithful-lines.mjs KEEP/ours-trace.jsonl [--dist DIR] [--show N] [--options JSON]\n");
    return 2;
  }
  const f = await import(pathToFileURL(path.join(path.resolve(o.dist), "engines/model/faithful.js")).href);
  const options = { ...f.FAITHFUL_DEFAULTS, ...JSON.parse(o.options) };
  const manifest = JSON.parse(readFileSync(path.join(root, "bench/real/manifest.json"), "utf8")).pages;
  const byId = new Map(manifest.map((p) => [p.id, p]));
  if (!existsSync(positionals[0])) {
    process.stderr.write(`${positionals[0]}: no such trace (bench parse --real --keep DIR writes DIR/ours-trace.jsonl)\n`);
    return 2;
  }
  let lines = 0,
    before = 0,
    after = 0,
    skipped = 0;
  const changes = [];
  // (the last traced run of each page: a --reuse run appends the pages it parsed again)
  for (const [source, traced] of tracedPages(positionals[0])) {
    const id = path.basename(source).replace(/\.[a-z]+$/, "");
    const page = byId.get(id);
    if (!page) continue;
    if (!tunable(page)) {
      skipped++;
      continue;
    }
    const hand = path.join(root, "bench/real/truth-hand", `${id}.md`);
    const truth = norm(readFileSync(existsSync(hand) ? hand : path.join(root, page.truth), "utf8"));
    const ls = traced.filter(Boolean);
    const scripts = f.pageScripts(ls.map((l) => ({ text: l.text, peaks: Float32Array.from(l.peaks) })));
    ls.forEach((l, i) => {
      // (a line read in parts is merged part by part, each with its own evidence: tracedPages)
      const merged = (l.parts ?? [l])
        .map((p) =>
          f.mergeLine(
            p.decoded,
            {
              text: p.text,
              peaks: Float32Array.from(p.peaks),
              gaps: p.gaps && Float32Array.from(p.gaps),
              diacritics: p.diacritics && Uint8Array.from(p.diacritics),
              diacriticPeaks: p.diacriticPeaks && Float32Array.from(p.diacriticPeaks),
              // (glyph heights set Cyrillic letters' case; the trace writes an unmeasured one as null)
              heights: p.heights && Float32Array.from(p.heights, (h) => h ?? Number.NaN),
              depths: p.depths && Float32Array.from(p.depths, (h) => h ?? Number.NaN),
              previous: ls[i - 1]?.text,
            },
            scripts,
            options,
          ),
        )
        .join("");
      if (merged === l.merged) return;
      const a = windowDistance(norm(l.merged), truth),
        b = windowDistance(norm(merged), truth);
      lines++;
      before += a;
      after += b;
      changes.push([b - a, id, l.merged, merged]);
    });
  }
  console.log(`${lines} lines merge differently; their errors ${before} -> ${after} (${skipped} reserved pages left out)`);
  const show = Number(o.show);
  if (show > 0) {
    changes.sort((x, y) => x[0] - y[0]);
    const picked = [...changes.slice(0, show), ...changes.slice(Math.max(show, changes.length - show))];
    for (const [d, id, was, now] of picked)
      console.log(`${d > 0 ? "+" : ""}${d} ${id}\n  was: ${JSON.stringify(was)}\n  now: ${JSON.stringify(now)}`);
  }
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main().then((c) => (process.exitCode = c));
