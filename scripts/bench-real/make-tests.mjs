// Writes bench/real/tests.jsonl, the olmOCR-Bench-format unit tests of the real-document dev set, from the
// pages' truth (bench/real/truth/ID.md) and manifest: sentences present, running headers/footers absent, reading
// order (first before last sentence; on multi-column pages the last line of the left column before the first of
// the right one, from pdftotext -bbox-layout), table cells with their neighbours. Hand-written tests come from
// bench/real/tests-hand.jsonl; tests listed in bench/real/tests-rejected.txt (checked by hand, found wrong) are
// dropped. Every kept test must pass on the truth itself; the script prints "truth passes N of N".
//
//   node scripts/bench-real/make-tests.mjs [--shared DIR] [--check]    (--check: verify, write nothing)
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { htmlTables, markdownTables, normalise, runTest, similarity, testProblem } from "./unit-tests.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dir = path.join(root, "bench/real");
const { values: o } = parseArgs({
  options: { shared: { type: "string", default: path.resolve(root, "../shared/data/real") }, check: { type: "boolean" } },
});
const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
const rejected = new Map(
  existsSync(path.join(dir, "tests-rejected.txt"))
    ? readFileSync(path.join(dir, "tests-rejected.txt"), "utf8")
        .split("\n")
        .filter((l) => l.trim() && !l.startsWith("#"))
        .map((l) => [l.split(/\s+/)[0], l])
    : [],
);
const hand = existsSync(path.join(dir, "tests-hand.jsonl"))
  ? readFileSync(path.join(dir, "tests-hand.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l))
  : [];

const letters = (s) => (s.match(/\p{L}/gu) ?? []).length;
const diffsFor = (s) => Math.floor(Array.from(s).length * 0.04);

/** Lines that make good "present" tests: prose-like, whole, distinctive on the page. */
function sentenceCandidates(md, page) {
  const text = normalise(md);
  const bad = new Set((page.notForTests ?? []).map((l) => normalise(l)));
  let units;
  if (page.truthFrom.startsWith("docling")) {
    units = md
      .split("\n")
      .filter((l) => !l.includes("|") && !l.startsWith("#") && !l.startsWith("<!--"))
      .flatMap((l) => l.split(/(?<=[.!?])\s+/));
  } else {
    // a line that continues a word hyphenated at the end of the line before starts with a fragment
    const lines = md.split("\n");
    units = lines.filter((l, i) => i === 0 || !/[-‐]$/.test(lines[i - 1].trim()));
  }
  return units
    .map((l) => l.trim())
    .filter((l) => {
      const n = Array.from(l).length;
      if (n < (page.truthFrom.startsWith("FUNSD") ? 12 : 30) || n > 110) return false;
      if (/[-‐]$/.test(l) || /[|<>$]/.test(l) || /\.{4,}|(?:\. ){3,}/.test(l)) return false;
      if (letters(l) < 0.6 * n) return false;
      const q = normalise(l);
      if ([...bad].some((b) => q.includes(b) || b.includes(q))) return false;
      return text.indexOf(q) === text.lastIndexOf(q);
    });
}

const spread = (xs, n) => (xs.length <= n ? xs : Array.from({ length: n }, (_, i) => xs[Math.round((i * (xs.length - 1)) / (n - 1))]));

/** Multi-column pages: the last line of the left column and the first line of the right one (by position). */
function columnBoundary(page) {
  if (!page.file.startsWith("bench/")) return null;
  const xml = execFileSync("pdftotext", ["-bbox-layout", "-f", "1", "-l", "1", path.join(root, page.file), "-"], {
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  const width = Number(/<page width="([\d.]+)"/.exec(xml)[1]);
  const height = Number(/<page width="[\d.]+" height="([\d.]+)"/.exec(xml)[1]);
  const lines = [];
  for (const m of xml.matchAll(/<line xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([\s\S]*?)<\/line>/g)) {
    const words = [...m[5].matchAll(/<word[^>]*>([^<]*)<\/word>/g)].map((w) =>
      w[1]
        .replace(/&amp;/g, "&")
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&quot;/g, '"')
        .replace(/&apos;/g, "'"),
    );
    lines.push({ x0: +m[1], y0: +m[2], x1: +m[3], y1: +m[4], text: words.join(" ") });
  }
  const furniture = new Set(page.furniture);
  const ok = (l) =>
    l.text.length >= 25 &&
    letters(l.text) >= 0.6 * l.text.length &&
    !furniture.has(l.text) &&
    !/[-‐]$/.test(l.text) &&
    l.y0 > 0.07 * height &&
    l.y1 < 0.93 * height;
  const left = lines.filter((l) => l.x1 <= 0.52 * width && ok(l));
  const right = lines.filter((l) => l.x0 >= 0.48 * width && ok(l));
  if (left.length < 5 || right.length < 5) return null;
  const before = left.reduce((a, b) => (b.y1 > a.y1 ? b : a));
  const after = right.reduce((a, b) => (b.y0 < a.y0 ? b : a));
  return { before: before.text, after: after.text };
}

function tableTests(md) {
  const out = [];
  for (const tb of [...htmlTables(md), ...markdownTables(md)]) {
    const picks = [];
    tb.cells.forEach((cell, id) => {
      const text = normalise(cell.text).trim();
      if (Array.from(text).length < 2 || Array.from(text).length > 40 || cell.r === 0 || cell.c === 0) return;
      if (tb.cells.some((other, j) => j !== id && similarity(text, normalise(other.text)) >= 0.8)) return;
      const up = tb.occupied[cell.r - 1]?.[cell.c];
      const left = tb.occupied[cell.r]?.[cell.c - 1];
      if (up === undefined || left === undefined || up === id || left === id) return;
      const upText = normalise(tb.cells[up].text).trim();
      const leftText = normalise(tb.cells[left].text).trim();
      if (!upText || !leftText) return;
      picks.push({ cell: text, up: upText, left: leftText });
    });
    out.push(...spread(picks, 4));
  }
  return out;
}

const tests = [];
let generated = 0;
const dropped = [];
for (const page of manifest.pages) {
  const md = readFileSync(path.join(root, page.truth), "utf8");
  const base = { pdf: `${page.id}.pdf`, page: 1 };
  const mine = [];
  const add = (type, fields) =>
    mine.push({ ...base, id: `${page.id}-${type}-${mine.filter((t) => t.type === type).length + 1}`, type, ...fields });
  const sentences = sentenceCandidates(md, page);
  const chosen = spread(sentences, 3);
  for (const s of chosen) add("present", { text: s, max_diffs: diffsFor(s) });
  for (const f of page.furniture) if (letters(f) >= 3 || /\d+\s*\/\s*\d+/.test(f)) add("absent", { text: f, max_diffs: 0 });
  if (sentences.length >= 2) {
    const a = sentences[0];
    const b = sentences.at(-1);
    add("order", { before: a, after: b, max_diffs: Math.min(diffsFor(a), diffsFor(b)) });
  }
  if (page.kinds.includes("multicol") || page.kinds.includes("newsletter")) {
    const c = columnBoundary(page);
    if (c)
      add("order", {
        ...c,
        max_diffs: Math.min(diffsFor(c.before), diffsFor(c.after)),
        note: "column order: last line of the left column before the first of the right",
      });
  }
  if (page.kinds.includes("table"))
    for (const t of tableTests(md)) add("table", { ...t, max_diffs: Math.floor(Array.from(t.cell).length / 10) });
  for (const t of hand.filter((t) => t.pdf === base.pdf)) mine.push(t);
  generated += mine.length;
  for (const t of mine) {
    const problem = testProblem(t);
    if (problem) throw new Error(`${t.id}: ${problem}`);
    if (rejected.has(t.id)) continue;
    const [pass, why] = runTest(t, md);
    if (!pass) {
      dropped.push(`${t.id}: fails on the truth (${why})`);
      continue;
    }
    tests.push(t);
  }
}
let passes = 0;
for (const t of tests) {
  const page = manifest.pages.find((p) => `${p.id}.pdf` === t.pdf);
  if (runTest(t, readFileSync(path.join(root, page.truth), "utf8"))[0]) passes++;
}
for (const d of dropped) console.log(`dropped ${d}`);
const byType = {};
for (const t of tests) byType[t.type] = (byType[t.type] ?? 0) + 1;
console.log(
  `${generated} candidate tests, ${rejected.size} rejected by hand, ${dropped.length} failing on the truth dropped; kept ${tests.length}: ${JSON.stringify(byType)}`,
);
console.log(`truth passes ${passes} of ${tests.length}`);
if (!o.check) writeFileSync(path.join(dir, "tests.jsonl"), tests.map((t) => JSON.stringify(t)).join("\n") + "\n");
