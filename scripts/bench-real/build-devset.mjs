// Builds the real-document dev set of `ocr bench parse --real` from bench/real/sources.json (the hand-made
// selection): single pages of Debian documents extracted with qpdf into bench/real/pages/ID.pdf, the truth of
// every page in bench/real/truth/ID.md, and bench/real/manifest.json. Files from ../shared/data/real are
// referenced by path, never copied. Hand-written truth in bench/real/truth-hand/ID.md replaces the extracted one.
//
//   node scripts/bench-real/build-devset.mjs [--debian DIR,DIR…] [--shared DIR]
//
// --debian: folders holding extracted packages as DIR/PACKAGE/usr/… (default $OCR_DATA/debian,$OCR_DATA/bench-real/pkgs;
// required when OCR_DATA is unset).
// Needs qpdf and poppler-utils (pdftotext). Every Debian document must be a dev document by bench/real/split.mjs.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync, statSync, rmSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { isDevDocument } from "../../bench/real/split.mjs";
import { dataDefault, requireData } from "../data-dir.mjs";
import { funsdTruth, pubtabnetHtml } from "./truth.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dir = path.join(root, "bench/real");
const { values: o } = parseArgs({
  options: {
    debian: { type: "string" },
    shared: { type: "string", default: path.resolve(root, "../shared/data/real") },
  },
});
o.debian ??= process.env.OCR_DATA ? `${dataDefault("debian")},${dataDefault("bench-real", "pkgs")}` : undefined;
requireData(o.debian, "--debian", "debian");
const sources = JSON.parse(readFileSync(path.join(dir, "sources.json"), "utf8"));
const LICENCE = {
  "debian-edu-doc-legacy-uk": "GPL-2+ (Debian main; /usr/share/doc/debian-edu-doc-legacy-uk/copyright)",
  docling: "MIT (docling-project/docling tests/data)",
  pubtabnet: "CDLA-Permissive-1.0 (PubTabNet examples)",
  funsd: "FUNSD: non-commercial research and educational use (third-party copy, see ../shared/data/real/funsd/SOURCE)",
  debian: "Debian main (DFSG-free); terms in the package's debian/copyright",
};
const RESERVED = ["r-doc-pdf", "texlive-latex-base-doc", "texlive-lang-german", "texlive-lang-cyrillic"];

const text = (cmd, args) => execFileSync(cmd, args, { encoding: "utf8", maxBuffer: 1 << 26 });
const pageText = (file, n) => text("pdftotext", ["-f", String(n), "-l", String(n), "-enc", "UTF-8", file, "-"]);
const pageCount = (file) => Number(/Pages:\s+(\d+)/.exec(text("pdfinfo", [file]))[1]);

function findDebian(pkg, p) {
  for (const d of o.debian.split(",")) {
    const f = path.join(d, pkg, p);
    if (existsSync(f)) return f;
  }
  throw new Error(`${pkg}:${p}: not found under ${o.debian} (apt-get download ${pkg} && dpkg-deb -x … DIR/${pkg})`);
}

/** Line key for running-furniture detection: digits and roman page numbers do not count. */
const furnitureKey = (l) =>
  l
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\b[ivxlc]+\b/gi, "#")
    .replace(/\d+/g, "#");
const isPageNumber = (l) => /^(?:[0-9]+|[ivxlc]+|[0-9]+\s*\/\s*[0-9]+|page\s+[0-9]+(?:\s+of\s+[0-9]+)?)$/i.test(l.trim());

/**
 * Running headers and footers of page n: lines among its first/last 3 that recur at the same edge of page n±1 or
 * n±2 (so alternating even/odd headers count), and a bare page number as the very first or last line.
 */
function furniture(file, n, keep = [], forced = []) {
  const lines = (t) =>
    t
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
  const here = lines(pageText(file, n));
  const count = pageCount(file);
  const top = new Set();
  const bottom = new Set();
  for (const m of [n - 1, n + 1, n - 2, n + 2]) {
    if (m < 1 || m > count) continue;
    const ls = lines(pageText(file, m));
    for (const l of ls.slice(0, 3)) top.add(furnitureKey(l));
    for (const l of ls.slice(-3)) bottom.add(furnitureKey(l));
  }
  const found = [];
  const last = here.length - 1;
  const candidate = (l) => (l.match(/\p{L}/gu) ?? []).length >= 3 && !/^[\\(\[{%]/.test(l) && !keep.includes(l);
  for (let i = 0; i <= last; i++) {
    const l = here[i];
    const atTop = i < 3;
    const atBottom = i > last - 3;
    if ((atTop && top.has(furnitureKey(l)) && candidate(l)) || (atBottom && bottom.has(furnitureKey(l)) && candidate(l))) found.push(i);
    else if ((i === 0 || i === last) && isPageNumber(l) && !keep.includes(l)) found.push(i);
    else if (forced.includes(l)) found.push(i);
  }
  // a page number just inside a running header or footer ("Chapter 2: Objects" / "5")
  if (found.includes(0) && last >= 1 && isPageNumber(here[1]) && !keep.includes(here[1])) found.push(1);
  if (found.includes(last) && last >= 1 && isPageNumber(here[last - 1]) && !keep.includes(here[last - 1])) found.push(last - 1);
  return { lines: here, furniture: found };
}

/** pdftotext page → Markdown-ish plain text: paragraphs as pdftotext separates them, furniture removed. */
function pdfTruth(file, n, keep, columns, forced) {
  const raw = (columns ? columnText(file, n, columns) : pageText(file, n)).replace(/\f/g, "");
  const { lines, furniture: fi } = furniture(file, n, keep, forced);
  const squash = (l) => l.replace(/\s+/g, "");
  const drop = new Set(fi.map((i) => squash(lines[i])));
  const dropped = [];
  const out = [];
  for (const l of raw.split("\n")) {
    const t = l.trim();
    if (drop.has(squash(t)) && t) {
      dropped.push(t);
      drop.delete(squash(t));
      continue;
    }
    out.push(t);
  }
  const md =
    out
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim() + "\n";
  return { md, furniture: dropped };
}

/**
 * Column-ordered page text for pages pdftotext reads across the columns (sources.json "columns": N): the text
 * blocks of pdftotext -bbox-layout, those wider than a column first (above the columns) or last (below), the
 * others column by column, top to bottom.
 */
function columnText(file, n, columns) {
  const xml = text("pdftotext", ["-bbox-layout", "-f", String(n), "-l", String(n), file, "-"]);
  const width = Number(/<page width="([\d.]+)"/.exec(xml)[1]);
  const unescapeXml = (s) =>
    s
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, "&");
  const blocks = [];
  for (const m of xml.matchAll(/<block xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([\s\S]*?)<\/block>/g)) {
    const lines = [...m[5].matchAll(/<line[^>]*>([\s\S]*?)<\/line>/g)].map((l) =>
      [...l[1].matchAll(/<word[^>]*>([^<]*)<\/word>/g)].map((w) => unescapeXml(w[1])).join(" "),
    );
    blocks.push({ x0: +m[1], y0: +m[2], x1: +m[3], y1: +m[4], lines });
  }
  const col = width / columns;
  const spanning = blocks.filter((b) => b.x1 - b.x0 > 1.2 * col).sort((a, b) => a.y0 - b.y0);
  const column = (b) => Math.min(columns - 1, Math.floor((b.x0 + b.x1) / 2 / col));
  // blocks wider than a column cut the page into bands; a band is read column by column
  const band = (b) => spanning.filter((s) => s.y1 <= b.y0 + 1).length;
  const inColumns = blocks.filter((b) => !spanning.includes(b)).sort((a, b) => band(a) - band(b) || column(a) - column(b) || a.y0 - b.y0);
  const ordered = [];
  for (let i = 0; i <= spanning.length; i++) {
    ordered.push(...inColumns.filter((b) => band(b) === i));
    if (i < spanning.length) ordered.push(spanning[i]);
  }
  // -bbox-layout splits the raised letters of the TeX logos into words ("L A TEX"); the plain text has "LATEX"
  const logos = (l) => l.replace(/\bL A TEX\b/g, "LATEX").replace(/\bL A TEX/g, "LATEX");
  return ordered.map((b) => b.lines.map(logos).join("\n")).join("\n\n") + "\n";
}

mkdirSync(path.join(dir, "pages"), { recursive: true });
mkdirSync(path.join(dir, "truth"), { recursive: true });
const manifest = {
  description: "Real-document dev set of `ocr bench parse --real` (built by scripts/bench-real/build-devset.mjs from sources.json)",
  splitRule: "bench/real/split.mjs isDevDocument(pkg, path)",
  pages: [],
};
const ids = new Set();
for (const s of sources) {
  if (ids.has(s.id)) throw new Error(`sources.json: duplicate id ${s.id}`);
  ids.add(s.id);
  let file;
  let entry = { id: s.id, kinds: s.kinds, lang: s.lang, page: s.page, recipe: s.recipe };
  if (s.source.package) {
    const { package: pkg, path: p } = s.source;
    if (RESERVED.includes(pkg)) throw new Error(`${s.id}: ${pkg} is reserved for independent evaluation`);
    if (!isDevDocument(pkg, p)) throw new Error(`${s.id}: ${pkg}:${p} is not a dev document by the split rule`);
    file = findDebian(pkg, p);
    const out = path.join(dir, "pages", `${s.id}.pdf`);
    execFileSync("qpdf", [
      "--deterministic-id",
      "--empty",
      "--pages",
      file,
      String(s.page),
      "--",
      "--compress-streams=y",
      "--object-streams=generate",
      out,
    ]);
    entry = {
      ...entry,
      file: `bench/real/pages/${s.id}.pdf`,
      filePage: 1,
      source: { package: pkg, path: p, version: "Debian 12 (bookworm)" },
      licence: LICENCE[pkg] ?? LICENCE.debian,
    };
  } else {
    file = path.join(o.shared, s.source.shared);
    if (!existsSync(file)) throw new Error(`${s.id}: ${file} is missing`);
    const top = s.source.shared.split("/")[0];
    entry = {
      ...entry,
      file: `shared:${s.source.shared}`,
      filePage: s.page,
      source: { shared: `../shared/data/real/${s.source.shared}` },
      licence: LICENCE[top] ?? "see ../shared/data/real/../PROVENANCE.md",
    };
  }
  if (s.evalOnly)
    entry.evaluationOnly = "from a package reserved for independent evaluation (../shared/data/real): measure, never train or tune on it";
  const hand = path.join(dir, "truth-hand", `${s.id}.md`);
  let md;
  let truthFrom = s.truth;
  let furn = [];
  if (existsSync(hand)) {
    md = readFileSync(hand, "utf8");
    truthFrom = `hand (bench/real/truth-hand/${s.id}.md)${s.truth === "hand" ? "" : `; checked against ${s.truth}`}`;
    if (s.truth === "pdftotext") furn = pdfTruth(file, s.page, s.notFurniture ?? [], s.columns, s.furniture ?? []).furniture;
  } else if (s.truth === "pdftotext") {
    const t = pdfTruth(file, s.page, s.notFurniture ?? [], s.columns, s.furniture ?? []);
    md = t.md;
    furn = t.furniture;
    truthFrom = s.columns
      ? `pdftotext -bbox-layout blocks read in ${s.columns} columns (plain pdftotext reads across them), running headers/footers removed`
      : "pdftotext -f N -l N -enc UTF-8, running headers/footers removed";
  } else if (s.truth === "docling-md") {
    md = readFileSync(file.replace(/\.pdf$/, ".groundtruth.md"), "utf8");
    truthFrom = "docling groundtruth.md (docling's pipeline output)";
  } else if (s.truth === "pubtabnet") {
    const name = path.basename(file);
    const line = readFileSync(path.join(path.dirname(file), "PubTabNet_Examples.jsonl"), "utf8")
      .split("\n")
      .find((l) => l.includes(`"${name}"`));
    md = pubtabnetHtml(JSON.parse(line)) + "\n";
    truthFrom = "PubTabNet HTML (structure + cell tokens)";
  } else if (s.truth === "funsd") {
    md = funsdTruth(JSON.parse(readFileSync(file.replace(/\.png$/, ".json"), "utf8")));
    truthFrom = "FUNSD words, lines in reading order (top to bottom, left to right)";
  } else throw new Error(`${s.id}: no truth (${s.truth}) — write bench/real/truth-hand/${s.id}.md`);
  writeFileSync(path.join(dir, "truth", `${s.id}.md`), md);
  // lines whose text layer differs from the printed text (logos, font-encoding garbage, split hyphenation):
  // checked by hand, never used for tests
  const notForTests = s.notForTests ?? [];
  manifest.pages.push({
    ...entry,
    truth: `bench/real/truth/${s.id}.md`,
    truthFrom,
    furniture: furn,
    ...(notForTests.length ? { notForTests } : {}),
  });
}
manifest.renderRecipes = {
  pdf150: "pdftoppm -r 150 -png (born-digital page as a reader's screenshot)",
  pdf300gray: "pdftoppm -r 300 -gray (a real scan stored as PDF)",
  scan300:
    "pdftoppm -r 300 -gray, then scripts/bench-real/degrade.mjs seeded by the page id: rotation, blur, noise, JPEG, sometimes binarisation (scan-like, not a real scan)",
  image: "the dataset's own image as it is (real scan or crop)",
};
writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(manifest, null, 1) + "\n");
let bytes = 0;
for (const p of manifest.pages) if (p.file.startsWith("bench/")) bytes += statSync(path.join(root, p.file)).size;
console.log(`${manifest.pages.length} pages, ${(bytes / 1024).toFixed(0)} KiB of extracted pages`);
