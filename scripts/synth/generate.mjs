// Generates born-digital PDF documents with exact Markdown ground truth and per-line/per-block boxes.
// Usage: node scripts/synth/generate.mjs --corpus DIR --out DIR --split train|val|test --count N --seed S
//        [--fonts seen|unseen] [--start I] [--latex P]
// --latex P typesets a share P of the documents like LaTeX manuals: Computer Modern / TeX Gyre fonts, justified
// paragraphs with hyphenation (the Markdown joins the broken word), indented paragraphs, numbered section headings
// set apart from their titles, and a running header with the page number on the same line. P = 0 (the default)
// generates exactly what earlier versions did for the same seed.
// Writes DIR/doc-XXXXX.pdf and DIR/doc-XXXXX.json ({pages: [{width, height, markdown, blocks, lines}]}),
// where boxes are in PDF points with a top-left origin. The typesetting is ours (not the PDF library's), so
// every character drawn is known: the Markdown is the truth by construction.
import fs from "node:fs";
import path from "node:path";
import { PDFDocument, rgb } from "pdf-lib";
import fontkit from "@pdf-lib/fontkit";

const FONT_DIR = "/usr/share/fonts/truetype";
// Body families the model trains on; "unseen" families appear only in the unseen-font test set.
const FAMILIES = {
  seen: [
    { name: "DejaVuSans", regular: "dejavu/DejaVuSans.ttf", bold: "dejavu/DejaVuSans-Bold.ttf" },
    { name: "DejaVuSerif", regular: "dejavu/DejaVuSerif.ttf", bold: "dejavu/DejaVuSerif-Bold.ttf" },
    { name: "LiberationSans", regular: "liberation2/LiberationSans-Regular.ttf", bold: "liberation2/LiberationSans-Bold.ttf" },
    { name: "LiberationSerif", regular: "liberation2/LiberationSerif-Regular.ttf", bold: "liberation2/LiberationSerif-Bold.ttf" },
    { name: "NotoSans", regular: "noto/NotoSans-Regular.ttf", bold: "noto/NotoSans-Bold.ttf" },
    { name: "NotoSerif", regular: "noto/NotoSerif-Regular.ttf", bold: "noto/NotoSerif-Bold.ttf" },
    { name: "LiberationMono", regular: "liberation2/LiberationMono-Regular.ttf", bold: "liberation2/LiberationMono-Bold.ttf" },
  ],
  unseen: [
    { name: "DejaVuSansCondensed", regular: "dejavu/DejaVuSansCondensed.ttf", bold: "dejavu/DejaVuSansCondensed-Bold.ttf" },
    { name: "DejaVuSerifCondensed", regular: "dejavu/DejaVuSerifCondensed.ttf", bold: "dejavu/DejaVuSerifCondensed-Bold.ttf" },
    { name: "NotoSansDisplay", regular: "noto/NotoSansDisplay-Regular.ttf", bold: "noto/NotoSansDisplay-Bold.ttf" },
    { name: "NotoSerifDisplay", regular: "noto/NotoSerifDisplay-Regular.ttf", bold: "noto/NotoSerifDisplay-Bold.ttf" },
  ],
};
const MONO = { seen: "dejavu/DejaVuSansMono.ttf", unseen: "dejavu/DejaVuSansMono.ttf" };
// LaTeX-manual look (fonts-cmu, fonts-lmodern, fonts-texgyre); only CMU covers Cyrillic. Never in the unseen set.
const TEXMF = "/usr/share/texmf/fonts/opentype/public";
const LATEX_FAMILIES = [
  { name: "CMUSerif", regular: "cmu/cmunrm.ttf", bold: "cmu/cmunbx.ttf", cyrillic: true },
  { name: "CMUSansSerif", regular: "cmu/cmunss.ttf", bold: "cmu/cmunsx.ttf", cyrillic: true },
  { name: "LMRoman10", regular: `${TEXMF}/lm/lmroman10-regular.otf`, bold: `${TEXMF}/lm/lmroman10-bold.otf` },
  { name: "TeXGyreTermes", regular: `${TEXMF}/tex-gyre/texgyretermes-regular.otf`, bold: `${TEXMF}/tex-gyre/texgyretermes-bold.otf` },
  { name: "TeXGyrePagella", regular: `${TEXMF}/tex-gyre/texgyrepagella-regular.otf`, bold: `${TEXMF}/tex-gyre/texgyrepagella-bold.otf` },
];
const LATEX_MONO = "cmu/cmuntt.ttf";
const CHAPTER = { en: "Chapter", de: "Kapitel", fr: "Chapitre", es: "Capítulo", ru: "Глава", uk: "Розділ", sr: "Поглавље" };
const CYRILLIC_LANGS = ["ru", "uk", "sr", "bg"];
const PAPERS = { A4: [595.28, 841.89], Letter: [612, 792] };

function parseArgs(argv) {
  const args = {
    split: "train",
    count: 10,
    seed: 1,
    fonts: "seen",
    start: 0,
    latex: 0,
    corpus: process.env.OCR_DATA ? path.join(process.env.OCR_DATA, "synth", "corpus") : undefined,
  };
  for (let i = 2; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "");
    if (!(key in args) && key !== "out") throw new Error(`unknown option --${key}`);
    args[key] = ["count", "seed", "start", "latex"].includes(key) ? Number(argv[i + 1]) : argv[i + 1];
  }
  if (!args.out) throw new Error("--out DIR is required");
  if (!args.corpus) throw new Error("--corpus DIR is required (or set OCR_DATA: it is then $OCR_DATA/synth/corpus)");
  return args;
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  constructor(seed) {
    this.next = mulberry32(seed);
  }
  float(lo = 0, hi = 1) {
    return lo + (hi - lo) * this.next();
  }
  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick(list) {
    return list[Math.floor(this.next() * list.length)];
  }
  chance(p) {
    return this.next() < p;
  }
}

function loadCorpus(dir, split) {
  const byLang = {};
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl"))) {
    for (const line of fs.readFileSync(path.join(dir, file), "utf8").split("\n")) {
      if (!line) continue;
      const doc = JSON.parse(line);
      if (doc.split !== split) continue;
      (byLang[doc.lang] ??= []).push(doc);
    }
  }
  return byLang;
}

// Markdown-significant characters at the start of a paragraph would change its meaning; such text is skipped.
const MD_START = /^([#>*+-]|\d+[.)]|```|<)/;

/** Turns one source document into a list of logical blocks (before layout). */
function buildBlocks(doc, rng) {
  const blocks = [];
  blocks.push({ kind: "heading", level: 1, text: doc.title.replace(/[_*#<>`]/g, " ").trim() || "Manual" });
  for (const [heading, paras] of doc.sections) {
    if (!MD_START.test(heading)) blocks.push({ kind: "heading", level: rng.pick([2, 2, 3]), text: heading });
    let i = 0;
    while (i < paras.length) {
      const roll = rng.float();
      const short = paras.slice(i, i + 6).filter((p) => p.length < 90 && !MD_START.test(p));
      if (roll < 0.12 && short.length >= 2) {
        const n = Math.min(short.length, rng.int(2, 5));
        blocks.push({ kind: "list", ordered: rng.chance(0.4), items: short.slice(0, n) });
        i += n;
      } else if (roll < 0.2) {
        const words = paras[i].split(" ").filter((w) => w.length > 0 && w.length < 14 && !/[<>&|`]/.test(w));
        const cols = rng.int(2, 4),
          rows = rng.int(2, 5);
        if (words.length >= cols * rows) {
          const cells = [];
          for (let r = 0; r < rows; r++) cells.push(words.slice(r * cols, r * cols + cols));
          blocks.push({ kind: "table", cells });
        }
        i += 1;
      } else if (roll < 0.26 && paras[i].length < 200) {
        const words = paras[i].split(" ");
        const lines = [];
        for (let w = 0; w < words.length && lines.length < 6; w += rng.int(3, 6)) lines.push(words.slice(w, w + rng.int(3, 6)).join(" "));
        blocks.push({ kind: "code", lines: lines.map((l) => l.slice(0, 48)) });
        i += 1;
      } else {
        if (!MD_START.test(paras[i])) blocks.push({ kind: "para", text: paras[i] });
        i += 1;
      }
    }
  }
  return blocks;
}

/** Greedy line breaking at spaces; a word wider than the line is split by characters. */
function wrap(text, font, size, width) {
  const words = text.split(" ").filter((w) => w.length);
  const lines = [];
  let cur = "";
  for (let word of words) {
    while (font.widthOfTextAtSize(word, size) > width) {
      let k = word.length - 1;
      while (k > 1 && font.widthOfTextAtSize(word.slice(0, k), size) > width) k--;
      if (cur) {
        lines.push(cur);
        cur = "";
      }
      lines.push(word.slice(0, k));
      word = word.slice(k);
    }
    const trial = cur ? cur + " " + word : word;
    if (font.widthOfTextAtSize(trial, size) <= width) cur = trial;
    else {
      lines.push(cur);
      cur = word;
    }
  }
  if (cur) lines.push(cur);
  return lines;
}

/**
 * LaTeX-style line breaking, one line at a time (so the caller can forbid a hyphen on a column's last line):
 * takes the next line from st.words[st.i..], greedy at spaces; a word wider than the line is split by
 * characters; with `hyphenate`, the word that does not fit may be broken after the longest prefix (≥ 3 letters,
 * leaving ≥ 3) that fits with a hyphen. Returns {text (as drawn), md (as in the Markdown), join (the next line
 * continues this word: no space between them in the Markdown)}.
 */
function takeLine(st, font, size, width, hyphenate) {
  const fits = (t) => font.widthOfTextAtSize(t, size) <= width;
  let cur = "";
  while (st.i < st.words.length) {
    const word = st.words[st.i];
    const trial = cur ? cur + " " + word : word;
    if (fits(trial)) {
      cur = trial;
      st.i++;
      continue;
    }
    if (!cur) {
      let k = word.length - 1;
      while (k > 1 && !fits(word.slice(0, k))) k--;
      st.words[st.i] = word.slice(k);
      return { text: word.slice(0, k), md: word.slice(0, k), join: true };
    }
    const m = hyphenate ? /^(\p{L}{6,})([.,;:!?)]*)$/u.exec(word) : null;
    if (m) {
      for (let k = m[1].length - 3; k >= 3; k--) {
        const head = cur + " " + word.slice(0, k);
        if (fits(head + "-")) {
          st.words[st.i] = word.slice(k);
          return { text: head + "-", md: head, join: true };
        }
      }
    }
    break;
  }
  return { text: cur, md: cur, join: false };
}

function escapeHtml(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

async function generateDoc(args, index, corpus, fontCache) {
  const rng = new Rng(args.seed * 1000003 + index);
  const langs = Object.keys(corpus).sort();
  const lang = rng.pick(langs);
  const source = rng.pick(corpus[lang]);
  const family = rng.pick(FAMILIES[args.fonts]);
  // The LaTeX look draws from its own generator, so --latex 0 leaves every other draw (and document) unchanged.
  const srng = new Rng(args.seed * 7919 + index * 31 + 17);
  const latex =
    args.latex > 0 && srng.chance(args.latex)
      ? {
          family: srng.pick(LATEX_FAMILIES.filter((f) => f.cyrillic || !CYRILLIC_LANGS.includes(lang))),
          parindent: srng.chance(0.7),
          numbered: srng.chance(0.8),
          chapter: srng.chance(0.6) ? srng.int(1, 12) : 0,
          chapterHeader: srng.chance(0.5),
          rule: srng.chance(0.5),
          alternate: srng.chance(0.5),
          hyphenRate: srng.float(0.2, 0.6),
        }
      : null;
  const face = latex ? latex.family : family;
  const paperName = rng.chance(0.5) ? "A4" : "Letter";
  const [pw, ph] = PAPERS[paperName];
  const size = rng.pick([8, 9, 10, 10, 11, 11, 12, 13, 14]);
  const drawnColumns = size <= 10 ? rng.pick([1, 1, 2, 2, 3]) : size <= 12 ? rng.pick([1, 1, 2]) : 1;
  const columns = latex && srng.chance(0.85) ? 1 : drawnColumns; // LaTeX manuals are mostly set in one column
  const leading = size * rng.float(1.15, 1.4);
  const margin = rng.float(40, 80);
  const gutter = rng.float(14, 28);

  const pdf = await PDFDocument.create();
  pdf.registerFontkit(fontkit);
  const embed = async (file) => pdf.embedFont(fontCache(file), { subset: true });
  const regular = await embed(face.regular);
  const bold = await embed(face.bold);
  const mono = await embed(latex ? LATEX_MONO : MONO[args.fonts]);

  const colWidth = (pw - 2 * margin - (columns - 1) * gutter) / columns;
  const top = margin + size * 2.2; // room for the running header
  const bottom = ph - margin - size * 2.2;
  const headerText = !latex
    ? `${source.title} (${lang})`
    : latex.chapterHeader && latex.chapter
      ? `${CHAPTER[lang] ?? CHAPTER.en} ${latex.chapter}: ${source.title}`
      : source.title;
  const pages = [];
  let page, truth, col, y;

  const newPage = () => {
    page = pdf.addPage([pw, ph]);
    truth = { width: pw, height: ph, paper: paperName, font: face.name, size, columns, lang, blocks: [], lines: [] };
    pages.push(truth);
    col = 0;
    y = top;
    const hsize = size * 0.85;
    if (!latex) {
      drawLine(headerText, margin, margin + hsize, regular, hsize, { kind: "header", md: headerText });
      return;
    }
    // LaTeX running head: the page number on the header's line, at the outer edge; blocks in left-to-right order.
    const num = String(pages.length);
    const head = { text: headerText, w: regular.widthOfTextAtSize(headerText, hsize), kind: "header" };
    const folio = { text: num, w: regular.widthOfTextAtSize(num, hsize), kind: "pagenum" };
    const [left, right] = latex.alternate && pages.length % 2 === 0 ? [folio, head] : [head, folio];
    for (const [part, x] of [
      [left, margin],
      [right, pw - margin - right.w],
    ]) {
      const start = truth.lines.length;
      drawLine(part.text, x, margin + hsize, regular, hsize, {});
      pushBlock({ kind: part.kind, md: part.text }, start);
    }
    if (latex.rule)
      page.drawLine({
        start: { x: margin, y: ph - (margin + hsize * 1.5) },
        end: { x: pw - margin, y: ph - (margin + hsize * 1.5) },
        thickness: 0.4,
      });
  };
  // Draws one text line with its baseline at yBase (top-left origin) and records its box.
  const drawLine = (text, x, yBase, font, fsize, block) => {
    page.drawText(text, { x, y: ph - yBase, size: fsize, font, color: rgb(0, 0, 0) });
    return record(text, x, x + font.widthOfTextAtSize(text, fsize), yBase, fsize, block);
  };
  // Draws a line's words spread to fill `width` (justified), unless that would leave gaps wider than 1.2 em.
  const drawJustified = (text, x, yBase, font, fsize, width, block) => {
    const words = text.split(" ");
    const natural = words.reduce((sum, w) => sum + font.widthOfTextAtSize(w, fsize), 0);
    const gap = (width - natural) / (words.length - 1);
    if (words.length < 2 || gap < 0 || gap > fsize * 1.2) return drawLine(text, x, yBase, font, fsize, block);
    let at = x;
    for (const w of words) {
      page.drawText(w, { x: at, y: ph - yBase, size: fsize, font, color: rgb(0, 0, 0) });
      at += font.widthOfTextAtSize(w, fsize) + gap;
    }
    return record(text, x, x + width, yBase, fsize, block);
  };
  // Records a drawn line: its box, its text as drawn and (where it differs, e.g. hyphenated) as in the Markdown.
  const record = (text, x0, x1, yBase, fsize, block) => {
    const box = [x0, yBase - fsize * 0.95, x1, yBase + fsize * 0.3];
    const line = { box, text, block: truth.blocks.length, lineMd: block.lineMd ?? text };
    if (block.md !== undefined && block.md !== text) line.md = block.md;
    truth.lines.push(line);
    return box;
  };
  const finishPage = () => {
    if (latex) {
      truth.markdown = truth.blocks.map((b) => b.md).join("\n\n");
      return;
    }
    const fsize = size * 0.85;
    const num = String(pages.length);
    const x = rng.chance(0.5) ? (pw - regular.widthOfTextAtSize(num, fsize)) / 2 : pw - margin - regular.widthOfTextAtSize(num, fsize);
    const footerBlock = { kind: "footer", md: num };
    const box = drawLine(num, x, ph - margin, regular, fsize, footerBlock);
    truth.blocks.push({ kind: "header", md: headerText, box: truth.lines[0].box });
    truth.blocks.push(footerBlock);
    footerBlock.box = box;
    // Reading order: header, body blocks (already in order), footer. Blocks were pushed body-first; reorder.
    const header = truth.blocks.splice(truth.blocks.length - 2, 1)[0];
    truth.blocks.unshift(header);
    truth.markdown = truth.blocks.map((b) => b.md).join("\n\n");
  };
  const colX = () => margin + col * (colWidth + gutter);
  // Reserves height h in the current column; moves to the next column or page when it does not fit.
  const reserve = (h) => {
    if (y + h <= bottom) return;
    col += 1;
    y = top;
    if (col >= columns) {
      finishPage();
      newPage();
    }
  };

  newPage();
  const blocks = buildBlocks(source, rng);
  const maxPages = rng.int(1, 3);
  const sections = [0, 0, 0, 0]; // LaTeX section counters by heading level
  let afterHeading = false; // LaTeX does not indent a section's first paragraph
  for (const blk of blocks) {
    if (pages.length > maxPages) break;
    if (blk.kind === "heading") {
      const fsize = size * [0, 1.6, 1.3, 1.12][blk.level];
      // LaTeX numbers sections ("3.2.1") and sets the number a quad apart from the title, which hangs after it
      let label = "";
      if (latex?.numbered && blk.level > 1) {
        sections[blk.level]++;
        if (blk.level === 3 && !sections[2]) sections[2] = 1;
        for (let l = blk.level + 1; l < sections.length; l++) sections[l] = 0;
        label = [...(latex.chapter ? [latex.chapter] : []), ...sections.slice(2, blk.level + 1)].join(".");
      }
      const hang = label ? bold.widthOfTextAtSize(label, fsize) + fsize : 0;
      const lines = wrap(blk.text, bold, fsize, colWidth - hang);
      if (lines.length > 2) continue;
      reserve(fsize * 1.3 * lines.length + size * 2.5);
      y += fsize * 0.5;
      const start = truth.lines.length;
      const prefix = "#".repeat(blk.level) + " " + (label ? label + " " : "");
      lines.forEach((ln, n) => {
        y += fsize * 1.25;
        // the number is a line of its own: the detector may find it apart from the title
        if (n === 0 && label) drawLine(label, colX(), y, bold, fsize, { lineMd: prefix.slice(0, -1) });
        drawLine(ln, colX() + hang, y, bold, fsize, { lineMd: (label ? "" : prefix) + ln });
      });
      pushBlock({ kind: "heading", md: prefix + lines.join(" ") }, start);
      y += size * 0.4;
      afterHeading = true;
    } else if (blk.kind === "para" || blk.kind === "list") {
      const items = blk.kind === "para" ? [blk.text] : blk.items;
      const indent = blk.kind === "list" ? size * 1.6 : 0;
      let start = truth.lines.length;
      let chunk = []; // items (or item continuations) drawn in the current column
      const flush = () => {
        if (chunk.length) pushBlock({ kind: blk.kind, md: chunk.map((c) => c.md).join("\n") }, start);
        chunk = [];
      };
      // LaTeX: first-line indent (not after a heading), justified lines, hyphenation (never on a column's last line)
      const parindent = latex?.parindent && blk.kind === "para" && !afterHeading ? size * 1.5 : 0;
      for (let k = 0; k < items.length; k++) {
        const st = { words: items[k].split(" ").filter((w) => w.length), i: 0 };
        const lines = latex ? null : wrap(items[k], regular, size, colWidth - indent);
        const marker = blk.kind === "list" ? (blk.ordered ? `${k + 1}.` : "\u2022") : "";
        const mdMarker = blk.kind === "list" ? (blk.ordered ? `${k + 1}. ` : "- ") : "";
        let item = null;
        let joined = false; // the previous line broke a word
        for (let j = 0; latex ? st.i < st.words.length : j < lines.length; j++) {
          if (y + leading > bottom) {
            // The block continues in the next column or page; what is drawn so far is one block here.
            flush();
            item = null;
            reserve(Infinity);
            start = truth.lines.length;
          }
          y += leading;
          if (j === 0 && marker) page.drawText(marker, { x: colX(), y: ph - y, size, font: regular, color: rgb(0, 0, 0) });
          const dx = indent + (j === 0 ? parindent : 0);
          const ln = latex
            ? takeLine(st, regular, size, colWidth - dx, y + leading <= bottom && srng.chance(latex.hyphenRate))
            : { text: lines[j], md: lines[j], join: false };
          const lineMd = (j === 0 ? mdMarker : "") + ln.md;
          const box =
            latex && st.i < st.words.length
              ? drawJustified(ln.text, colX() + dx, y, regular, size, colWidth - dx, { lineMd, md: ln.md })
              : drawLine(ln.text, colX() + dx, y, regular, size, { lineMd, md: ln.md });
          if (j === 0 && marker) box[0] = colX();
          if (item) item.md += (joined ? "" : " ") + ln.md;
          else {
            item = { md: lineMd };
            chunk.push(item);
          }
          joined = ln.join;
        }
      }
      flush();
      const space = size * rng.float(0.4, 0.9);
      y += latex?.parindent && blk.kind === "para" ? space * 0.2 : space;
      afterHeading = false;
    } else if (blk.kind === "code") {
      const fsize = size * 0.9;
      const lead = fsize * 1.25;
      const lines = blk.lines.filter((l) => mono.widthOfTextAtSize(l, fsize) <= colWidth - 8);
      if (!lines.length) continue;
      reserve(lead * lines.length + size);
      const start = truth.lines.length;
      y += size * 0.3;
      for (const ln of lines) {
        y += lead;
        drawLine(ln, colX() + 4, y, mono, fsize, { lineMd: ln });
      }
      pushBlock({ kind: "code", md: "```\n" + lines.join("\n") + "\n```" }, start);
      y += size * 0.8;
    } else if (blk.kind === "table") {
      const fsize = size * 0.95;
      const ncol = blk.cells[0].length;
      const cellW = colWidth / ncol;
      const fit = (w) => {
        let t = w;
        while (t.length > 1 && regular.widthOfTextAtSize(t, fsize) > cellW - 6) t = t.slice(0, -1);
        return t;
      };
      const cells = blk.cells.map((row) => row.map(fit));
      const rowH = fsize * 1.6;
      reserve(rowH * cells.length + size);
      if (y + rowH * cells.length > bottom) continue;
      const start = truth.lines.length;
      const x0 = colX();
      y += size * 0.4;
      const yTop = y;
      for (const row of cells) {
        row.forEach((cell, c) => {
          page.drawText(cell, { x: x0 + c * cellW + 3, y: ph - (y + rowH * 0.7), size: fsize, font: regular, color: rgb(0, 0, 0) });
          const w = regular.widthOfTextAtSize(cell, fsize);
          truth.lines.push({
            box: [x0 + c * cellW + 3, y + rowH * 0.7 - fsize * 0.95, x0 + c * cellW + 3 + w, y + rowH * 0.7 + fsize * 0.3],
            text: cell,
            block: truth.blocks.length,
            lineMd: null,
          });
        });
        y += rowH;
      }
      for (let r = 0; r <= cells.length; r++)
        page.drawLine({
          start: { x: x0, y: ph - (yTop + r * rowH) },
          end: { x: x0 + cellW * ncol, y: ph - (yTop + r * rowH) },
          thickness: 0.6,
        });
      for (let c = 0; c <= ncol; c++)
        page.drawLine({ start: { x: x0 + c * cellW, y: ph - yTop }, end: { x: x0 + c * cellW, y: ph - y }, thickness: 0.6 });
      const md =
        "<table>" + cells.map((row) => "<tr>" + row.map((c) => `<td>${escapeHtml(c)}</td>`).join("") + "</tr>").join("") + "</table>";
      pushBlock({ kind: "table", md, box: [x0, yTop, x0 + cellW * ncol, y] }, start);
      y += size * 0.8;
    }
  }
  finishPage();
  // Blocks were reordered (header moved first): renumber each line's block from the stored line ranges.
  for (const p of pages) {
    p.blocks.forEach((b, bi) => {
      for (const li of b.lineIdx ?? []) p.lines[li].block = bi;
    });
    if (!latex) {
      // the plain header and footer are blocks without line ranges
      p.lines[0].block = 0;
      p.lines[p.lines.length - 1].block = p.blocks.length - 1;
    }
    for (const b of p.blocks) {
      if (!b.box) {
        const ls = (b.lineIdx ?? []).map((i) => p.lines[i].box);
        b.box = [
          Math.min(...ls.map((q) => q[0])),
          Math.min(...ls.map((q) => q[1])),
          Math.max(...ls.map((q) => q[2])),
          Math.max(...ls.map((q) => q[3])),
        ];
      }
      b.col = b.lineIdx?.length ? columnOf(b.box[0]) : -1;
      delete b.lineIdx;
    }
  }
  function columnOf(x) {
    return Math.max(0, Math.min(columns - 1, Math.round((x - margin) / (colWidth + gutter))));
  }
  function pushBlock(b, startLine) {
    b.lineIdx = [];
    for (let i = startLine; i < truth.lines.length; i++) b.lineIdx.push(i);
    truth.blocks.push(b);
  }
  const bytes = await pdf.save();
  return { bytes, truth: { source: source.source, lang, split: args.split, fonts: args.fonts, seed: args.seed, index, pages } };
}

async function main() {
  const args = parseArgs(process.argv);
  const corpus = loadCorpus(args.corpus, args.split);
  if (!Object.keys(corpus).length) throw new Error(`no corpus documents for split ${args.split} in ${args.corpus}`);
  fs.mkdirSync(args.out, { recursive: true });
  const fontBytes = new Map();
  const fontCache = (file) => {
    if (!fontBytes.has(file)) fontBytes.set(file, fs.readFileSync(path.resolve(FONT_DIR, file)));
    return fontBytes.get(file);
  };
  for (let i = args.start; i < args.start + args.count; i++) {
    const { bytes, truth } = await generateDoc(args, i, corpus, fontCache);
    const base = path.join(args.out, `doc-${String(i).padStart(5, "0")}`);
    fs.writeFileSync(base + ".pdf.tmp", bytes);
    fs.renameSync(base + ".pdf.tmp", base + ".pdf");
    fs.writeFileSync(base + ".json.tmp", JSON.stringify(truth));
    fs.renameSync(base + ".json.tmp", base + ".json");
    if ((i + 1) % 50 === 0) process.stderr.write(`generated ${i + 1 - args.start}/${args.count}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`generate: ${err.stack ?? err}\n`);
  process.exit(1);
});
