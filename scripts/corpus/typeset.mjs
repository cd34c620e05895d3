// Typeset material for what manuals lack (issue 16 item 2): articles compiled with Debian's LaTeX (pdflatex;
// article class, one or two columns (or three, magazine-like, with multicol: --columns 3), Latin Modern / Times / Palatino / Helvetica / Charter / Computer Modern OT1;
// Times, Helvetica, Palatino, Charter need Debian's texlive-fonts-recommended) from generated sources with an
// abstract, numbered sections, footnotes, booktabs or fully ruled tables with captions, and display formulas. The
// source is the truth: every table's cells (checked against the HTML the PDF's rules and text give, else the
// document is dropped) and every formula's LaTeX (\[...\] in the Markdown, in source order). Prose comes from the
// paragraphs of the corpus' training documents (never val or bench text).
// Usage: node scripts/corpus/typeset.mjs --text DATA/corpus/train --out DATA/corpus --count 40 [--seed 1]
// (--text and --out default to $OCR_DATA/corpus/train and $OCR_DATA/corpus when OCR_DATA is set)
//        [--start 50000] [--scan 0.35] [--columns mixed|1|2|3]
// Writes OUT/{train,val}/doc-NNNNN.{tex,pdf,json,raster.json} and page images, numbered from --start.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { random, hash } from "../synth/degrade.mjs";
import { dataDefault, requireData } from "../data-dir.mjs";
import { ALLOWED } from "./charset.mjs";
import { splitOf } from "./packages.mjs";
import { renderDocument } from "./render.mjs";
import { documentFurniture, openPdf, pageTruth, readPage } from "./truth.mjs";

const args = {
  text: dataDefault("corpus", "train"),
  out: dataDefault("corpus"),
  count: 40,
  seed: 1,
  start: 50000,
  scan: 0.35,
  columns: "mixed",
};
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, "");
  if (!(key in args)) throw new Error(`typeset.mjs: unknown option ${process.argv[i]}`);
  args[key] = typeof args[key] === "number" ? Number(process.argv[i + 1]) : process.argv[i + 1];
}
requireData(args.text, "--text", "corpus", "train");
requireData(args.out, "--out", "corpus");

/** Training paragraphs: Latin-1 prose of 200-900 characters from the corpus' train split. */
function loadParagraphs(dir) {
  const out = [];
  for (const f of fs
    .readdirSync(dir)
    .filter((f) => /^doc-\d+\.json$/.test(f))
    .sort()) {
    const doc = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8"));
    if (doc.split !== "train") continue;
    for (const p of doc.pages)
      for (const b of p.blocks) {
        if (b.kind !== "para" || b.md.length < 200 || b.md.length > 900) continue;
        if ([...b.md].some((c) => !ALLOWED.has(c) || (c.charCodeAt(0) > 0xff && !"–—‘’“”…".includes(c)))) continue;
        if (/[\\{}$&#^_%~<>|]/.test(b.md) || /https?:/.test(b.md)) continue;
        if (/\. \. \.|\.\.\.\.|\p{L}- \p{Ll}/u.test(b.md)) continue; // dot leaders, a word broken across blocks
        out.push(b.md);
      }
  }
  if (out.length < 50) throw new Error(`${dir}: only ${out.length} usable paragraphs; build the corpus first`);
  return out;
}

const FONTS = [
  { name: "lmodern", pre: "\\usepackage{lmodern}" },
  { name: "times", pre: "\\usepackage{times}" }, // Times text, Computer Modern math (mathptmx sets math letters in Times Italic: not told from text)
  { name: "palatino", pre: "\\usepackage{palatino}" },
  { name: "helvetica", pre: "\\usepackage{helvet}\\renewcommand{\\familydefault}{\\sfdefault}" },
  { name: "charter", pre: "\\usepackage{charter}" },
  { name: "cm-ot1", pre: "", ot1: true }, // Computer Modern in OT1: accents drawn apart from their letters, as in older manuals
];
const VARS = ["x", "y", "z", "t", "u", "v", "a", "b", "n", "k"];
const GREEK = ["\\alpha", "\\beta", "\\gamma", "\\lambda", "\\mu", "\\sigma", "\\theta", "\\omega"];

/** A display formula's LaTeX (set \textstyle so limits and fractions stay on one line). */
function formula(rng) {
  const v = () => VARS[Math.floor(rng.next() * VARS.length)];
  const g = () => GREEK[Math.floor(rng.next() * GREEK.length)];
  const n = () => String(1 + Math.floor(rng.next() * 9));
  const forms = [
    () => `${v()}^{2} + ${v()}^{2} = ${v()}^{2}`,
    () => {
      const x = v();
      return `f(${x}) = ${n()}${x}^{2} + ${n()}${x} + ${n()}`;
    },
    () => `\\sum_{i=1}^{n} ${v()}_{i} = ${n()}`,
    () => {
      const x = v();
      return `\\int_{0}^{${n()}} ${x}\\,d${x} = \\frac{${n()}}{${n()}}`;
    },
    () => `E = m c^{2}`,
    () => `${g()} + ${g()} = ${g()}`,
    () => {
      const x = v();
      return `\\lim_{${x} \\to 0} \\frac{\\sin ${x}}{${x}} = 1`;
    },
    () => `P(A \\mid B) = \\frac{P(B \\mid A) P(A)}{P(B)}`,
    () => {
      const x = v();
      return `\\sqrt{${x}^{2} + ${n()}} \\leq ${x} + ${n()}`;
    },
    () => `${g()}_{${v()}} = \\max_{${v()}} ${v()}^{${n()}}`,
    () => {
      const x = v();
      return `(${x} + 1)^{${n()}} \\geq 1 + ${n()}${x}`;
    },
  ];
  return forms[Math.floor(rng.next() * forms.length)]();
}

const WORDS = [
  "alpha",
  "beta",
  "gamma",
  "delta",
  "north",
  "south",
  "east",
  "west",
  "red",
  "green",
  "blue",
  "total",
  "mean",
  "median",
  "Paris",
  "Roma",
  "Lisboa",
  "Madrid",
  "yes",
  "no",
  "high",
  "low",
  "open",
  "closed",
  "input",
  "output",
  "width",
  "height",
];
function cell(rng, numeric) {
  if (numeric) return rng.next() < 0.5 ? String(Math.floor(rng.next() * 1000)) : (rng.next() * 100).toFixed(Math.floor(rng.next() * 3));
  return WORDS[Math.floor(rng.next() * WORDS.length)] + (rng.next() < 0.3 ? " " + WORDS[Math.floor(rng.next() * WORDS.length)] : "");
}

function tex(text) {
  return text.replace(/…/g, "\\dots{}");
}

/** One article's LaTeX source and the truth it promises: tables (cells) and formulas (LaTeX), in order. */
function article(rng, paras) {
  const pick = () => paras[Math.floor(rng.next() * paras.length)];
  const font = FONTS[Math.floor(rng.next() * FONTS.length)];
  // mixed: two columns 70 % of the time, else one (the draw as before the option, so old seeds make the same documents)
  const drawn = rng.next() < 0.7 ? 2 : 1;
  const columns = args.columns === "mixed" ? drawn : Number(args.columns);
  if (![1, 2, 3].includes(columns)) throw new Error(`typeset.mjs: --columns must be mixed, 1, 2 or 3, not ${args.columns}`);
  const two = columns === 2,
    three = columns === 3;
  const size = [10, 10, 11, 12][Math.floor(rng.next() * 4)];
  const booktabs = rng.next() < 0.6;
  const tables = [],
    formulas = [];
  const body = [];
  const title = pick()
    .split(/[.,;:]/)[0]
    .split(" ")
    .slice(0, 8)
    .join(" ");
  body.push(`\\title{${tex(title)}}\\author{A. Author \\and B. Writer}\\date{}\\maketitle`);
  body.push(`\\begin{abstract}\n${tex(pick())}\n\\end{abstract}`);
  // three columns: multicol's columns, balanced on the last page, under a full-width title and abstract
  if (three) body.push("\\begin{multicols}{3}");
  const sections = 2 + Math.floor(rng.next() * 3);
  for (let s = 0; s < sections; s++) {
    body.push(
      `\\section{${tex(
        pick()
          .split(/[.,;:]/)[0]
          .split(" ")
          .slice(0, 5)
          .join(" "),
      )}}`,
    );
    const k = 2 + Math.floor(rng.next() * 3);
    for (let i = 0; i < k; i++) {
      let p = tex(pick());
      if (rng.next() < 0.15)
        p = p.replace(
          /\.(\s|$)/,
          `.\\footnote{${tex(
            pick()
              .slice(0, 120)
              .replace(/\s\S*$/, ""),
          )}.}$1`,
        );
      body.push(p);
      const roll = rng.next();
      if (roll < 0.25) {
        const f = formula(rng);
        formulas.push(f);
        body.push(`\\[\\textstyle ${f}\\]`);
      } else if (roll < 0.4 && !three) {
        const cols = 2 + Math.floor(rng.next() * 3),
          rows = 2 + Math.floor(rng.next() * 4);
        const numeric = Array.from({ length: cols }, (_, c) => c > 0 && rng.next() < 0.6);
        const head = Array.from({ length: cols }, () =>
          cell(rng, false)
            .split(" ")[0]
            .replace(/^./, (c) => c.toUpperCase()),
        );
        const cells = [head, ...Array.from({ length: rows }, () => numeric.map((num) => cell(rng, num)))];
        tables.push(cells);
        const spec = booktabs ? numeric.map((n) => (n ? "r" : "l")).join("") : "|" + numeric.map((n) => (n ? "r" : "l")).join("|") + "|";
        const row = (r) => r.join(" & ") + " \\\\";
        const lines = booktabs
          ? ["\\toprule", row(cells[0]), "\\midrule", ...cells.slice(1).map(row), "\\bottomrule"]
          : ["\\hline", row(cells[0]), "\\hline", ...cells.slice(1).map((r) => row(r) + " \\hline")];
        body.push(
          `\\begin{table}[h]\\centering\\caption{${tex(
            pick()
              .split(/[.,;:]/)[0]
              .split(" ")
              .slice(0, 6)
              .join(" "),
          )}}\n\\begin{tabular}{${spec}}\n${lines.join("\n")}\n\\end{tabular}\\end{table}`,
        );
      }
    }
  }
  if (three) body.push("\\end{multicols}");
  const source = `\\documentclass[${size}pt,${two ? "twocolumn" : "onecolumn"},a4paper]{article}
${font.ot1 ? "" : "\\usepackage[T1]{fontenc}"}\\usepackage[utf8]{inputenc}${font.pre}\\usepackage{amsmath,amssymb}${booktabs ? "\\usepackage{booktabs}" : ""}${three ? "\\usepackage{multicol}\\usepackage[margin=1.6cm]{geometry}" : ""}
\\begin{document}
${body.join("\n\n")}
\\end{document}
`;
  return { source, tables, formulas, meta: { font: font.name, columns, size, booktabs } };
}

function escapeHtml(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const debug = (msg) => {
  if (process.env.TYPESET_DEBUG) process.stderr.write(msg + "\n");
};
const paras = loadParagraphs(args.text);
const report = { documents: { train: 0, val: 0 }, pages: { train: 0, val: 0 }, dropped: {}, renderers: {}, scan: 0 };
const count = (r) => {
  report.dropped[r] = (report.dropped[r] ?? 0) + 1;
};
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "corpus-typeset-"));
for (let i = 0; i < args.count; i++) {
  const key = `typeset:${args.seed}:${i}`;
  const split = splitOf(key);
  if (split === "bench") continue;
  const rng = random(hash(key));
  const art = article(rng, paras);
  const texFile = path.join(tmp, "a.tex");
  fs.writeFileSync(texFile, art.source);
  try {
    execFileSync("pdflatex", ["-interaction=nonstopmode", "-halt-on-error", "a.tex"], { cwd: tmp, stdio: "pipe", timeout: 120_000 });
  } catch (e) {
    count("latex-error");
    if (process.env.TYPESET_DEBUG) process.stderr.write(String(e.stdout).slice(-1500));
    continue;
  }
  const pdfFile = path.join(tmp, "a.pdf");
  if (process.env.TYPESET_DEBUG) fs.copyFileSync(pdfFile, `/tmp/typeset-${i}.pdf`);
  const doc = await openPdf(pdfFile);
  const pages = [];
  for (let n = 1; n <= doc.numPages; n++) pages.push(await readPage(doc, n));
  await doc.destroy();
  const furniture = documentFurniture(pages);
  const queue = art.formulas.slice();
  let truths;
  try {
    truths = pages.map((p, k) => ({ ...pageTruth(p, furniture[k], { formulas: queue }), pdfPage: k + 1 }));
  } catch (e) {
    count("formula-mismatch");
    debug(`${key}: ${e.message}; sources ${JSON.stringify(art.formulas)}`);
    continue;
  }
  if (queue.length) {
    count("formula-mismatch");
    debug(`${key}: formulas not found ${JSON.stringify(queue)} of ${JSON.stringify(art.formulas)}`);
    continue;
  }
  // the tables the PDF shows must be the source's, cell for cell
  const shown = truths.flatMap((t) => (t.blocks ?? []).filter((b) => b.kind === "table").map((b) => b.md));
  const wanted = art.tables.map(
    (cells) => "<table>" + cells.map((r) => "<tr>" + r.map((c) => `<td>${escapeHtml(c)}</td>`).join("") + "</tr>").join("") + "</table>",
  );
  if (JSON.stringify(shown) !== JSON.stringify(wanted)) {
    count("table-mismatch");
    continue;
  }
  const kept = truths.filter((t) => !t.drop);
  if (kept.length !== truths.length) {
    for (const t of truths) if (t.drop) count("page-" + t.drop);
    continue;
  }
  const dir = path.join(args.out, split);
  fs.mkdirSync(dir, { recursive: true });
  const name = `doc-${String(args.start + i).padStart(5, "0")}`;
  fs.copyFileSync(texFile, path.join(dir, name + ".tex"));
  fs.copyFileSync(pdfFile, path.join(dir, name + ".pdf"));
  const truth = { source: key, package: "typeset", path: name + ".tex", split, ...art.meta, pages: kept };
  fs.writeFileSync(path.join(dir, name + ".json"), JSON.stringify(truth));
  if (!(await renderDocument(path.join(dir, name + ".pdf"), truth, dir, name, { seed: args.seed, scan: args.scan, report }))) continue;
  report.documents[split]++;
  report.pages[split] += truth.pages.length;
  process.stderr.write(
    `${split}/${name} ${key}: ${kept.length} pages, ${art.tables.length} tables, ${art.formulas.length} formulas, ${art.meta.columns} columns\n`,
  );
}
fs.rmSync(tmp, { recursive: true, force: true });
fs.writeFileSync(path.join(args.out, "typeset-report.json"), JSON.stringify(report, null, 1));
process.stderr.write(JSON.stringify(report) + "\n");
