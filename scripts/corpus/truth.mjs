// Exact page truth from a born-digital PDF's own text layer and drawing operators (pdfjs-dist, the product's PDF
// library; no poppler needed, so the tests run with Node alone). Output pages have the synthetic generator's form
// (scripts/synth/generate.mjs): {width, height, markdown, blocks: [{kind, md, box}], lines: [{box, text, md?, block,
// kind}]} with boxes in PDF points, top-left origin, in the page's viewport (rotation and crop box applied).
//
// How each part of the truth is found:
// - characters: pdfjs getTextContent items (Unicode from the font's ToUnicode / encoding), in content-stream order;
//   every item's box from its text matrix, advance width and the font's ascent/descent. Stand-alone spacing accents
//   that TeX's OT1 fonts draw over a letter ("a" + "¨") are composed into the accented letter (NFC);
//   ligatures (U+FB00-FB06) are spelt out. Words carry boxes split in proportion to their characters.
// - lines: items on one baseline (within 0.45 em: super- and subscripts stay on their line) that follow each other
//   left to right; a gap wider than 0.9 em starts a new segment (table cells, section numbers set a quad apart,
//   dot leaders). Segments are the truth lines: a detector box that covers several of them still aligns
//   (python/ocr_tools/train/data.py lets one detected line own consecutive truth lines).
// - reading order: the content stream's, which TeX and most producers write column by column. It is checked against
//   the geometry: a body line that starts above the previous one while overlapping it horizontally (a jump back up
//   within a column) makes the page `order`-dropped, counted, never silently kept.
// - formulas: a line whose characters are mostly in math fonts, or that has math and at most 6 letters of text.
// - headings: a line set ≥ 1.1× the page's body size (the size most characters have) and bold, or ≥ 1.3×: level by
//   size (≥ 1.7 → #, ≥ 1.3 → ##, else ###). Code: lines whose characters are nearly all in a monospace font
//   (name: Mono, Courier, CMTT, …). Formulas: lines mostly in math fonts (CMMI, CMSY, CMEX, MSAM, …) are labelled
//   `formula` and left out of the Markdown (the model's vocabulary has no math symbols); a page with many is dropped.
// - running headers, footers, page numbers: documentFurniture() over several pages of a document: the top- or
//   bottom-most line of a page, apart from the body, whose text (digits masked) or position repeats on other pages,
//   or that is a bare page number. They are blocks of kind header / pagenum / footer, first and last in the
//   Markdown, as the generator writes them.
// - tables: horizontal rules (thin filled rectangles or stroked lines from the operator list) that stack with text
//   between them, the text split into ≥ 2 aligned columns on ≥ 2 rows: an HTML table, one truth line per cell.
// - figures: images and vector drawings (curves, paths that are not rules or plain rectangles); text inside them is
//   labelled `figure` and left out; a page mostly figure is dropped.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { createRequire } from "node:module";
import { clean, outsideVocabulary } from "./charset.mjs";

const require = createRequire(import.meta.url);
const PDFJS_ROOT = path.dirname(require.resolve("pdfjs-dist/package.json"));
let pdfjsPromise;
export function loadPdfjs() {
  pdfjsPromise ??= import("pdfjs-dist/legacy/build/pdf.mjs");
  return pdfjsPromise;
}

/** Opens a PDF (or .pdf.gz) file with pdfjs; font properties (names, monospace) are kept. */
export async function openPdf(file) {
  const pdfjs = await loadPdfjs();
  let bytes = fs.readFileSync(file);
  if (file.endsWith(".gz")) bytes = zlib.gunzipSync(bytes);
  const folder = (name) => path.join(PDFJS_ROOT, name) + path.sep;
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes),
    standardFontDataUrl: folder("standard_fonts"),
    cMapUrl: folder("cmaps"),
    wasmUrl: folder("wasm"),
    cMapPacked: true,
    isEvalSupported: false,
    verbosity: 0,
    fontExtraProperties: true,
  });
  try {
    return await task.promise;
  } catch (error) {
    await task.destroy().catch(() => {});
    throw new Error(`${file}: not a readable PDF: ${error.message}`);
  }
}

const SUBSET = /^[A-Z]{6}\+/;
const MONO =
  /mono|courier|cmtt|lmtt|sftt|typewriter|txtt|pcrr|pcrb|consol|inconsolata|beramono|sourcecodepro|fira.?code|luximono|lettergothic|(^|[^a-z])tt\d|^rm-?tt|cmvtt|ectt|tcrm|sfltt/i;
const MATH =
  /math|^standardsym|^(ztmcm|zplm|zpzccmr|rtxm|rtxsy|ntxm|ntxsy|cmmi|cmsy|cmex|cmbsy|cmmib|msam|msbm|eufm|eusm|eurm|rsfs|lmmi|lmsy|lmex|txmi|txsy|txex|pxmi|pxsy|pxex|stixmath|stix.*math|xits.*math|cambria.?math|mnsymbol|esint|wasy|mdbch|mdput|mdugm|zeur|zeus|bbm|bbold|dsrom|lcmss|.*-?math\b|.*math[^a-z]*$|symbol$)/i;
const BOLD =
  /bold|black|heavy|semibold|demi|cmbx|cmb\d|cmssbx|ecbx|ecrb|ec[a-z]*bx|-bd|bx\d|sbx|^(linlibertine|linbiolinum|libertinus\w*)-?t?b|-(b|sb|eb)$|bd$/i;

/** Font facts by pdfjs font id: clean name, bold, monospace, math. */
function fontFacts(page, id, cache) {
  if (cache.has(id)) return cache.get(id);
  let obj;
  try {
    obj = page.commonObjs.get(id);
  } catch {
    obj = null;
  }
  const name = String(obj?.name ?? "").replace(SUBSET, "");
  const osf = /osf|-sc$|smallcaps/i.test(name);
  const facts = {
    name,
    bold: BOLD.test(name) || obj?.bold === true || obj?.black === true,
    mono: MONO.test(name) || (obj?.isMonospace === true && !osf && !/cmr|lmr|roman|serif|sans/i.test(name)),
    math: MATH.test(name),
    type3: obj?.isType3Font === true,
  };
  cache.set(id, facts);
  return facts;
}

const SPACING_ACCENTS = {
  "\u00a8": "\u0308",
  "\u00b4": "\u0301",
  "`": "\u0300",
  "\u02c6": "\u0302",
  "^": "\u0302",
  "\u02dc": "\u0303",
  "~": "\u0303",
  "\u00b8": "\u0327",
  "\u02c7": "\u030c",
  "\u02d8": "\u0306",
  "\u02d9": "\u0307",
  "\u02da": "\u030a",
  "\u02dd": "\u030b",
  "\u00af": "\u0304",
  "\u02db": "\u0328",
};
const LIGATURES = { "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st" };

/** Multiplies two affine matrices [a b c d e f] (pdfjs order): first m1 then m2. */
function mul(m2, m1) {
  return [
    m1[0] * m2[0] + m1[1] * m2[2],
    m1[0] * m2[1] + m1[1] * m2[3],
    m1[2] * m2[0] + m1[3] * m2[2],
    m1[2] * m2[1] + m1[3] * m2[3],
    m1[4] * m2[0] + m1[5] * m2[2] + m2[4],
    m1[4] * m2[1] + m1[5] * m2[3] + m2[5],
  ];
}
function applyBox(m, x0, y0, x1, y1) {
  const pts = [
    [x0, y0],
    [x1, y0],
    [x0, y1],
    [x1, y1],
  ].map(([x, y]) => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]]);
  const xs = pts.map((p) => p[0]),
    ys = pts.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/**
 * Drawing of one page from its operator list, in viewport points: horizontal and vertical rules, images and vector
 * drawings (figure regions). Also loads the page's fonts, so fontFacts() can read them.
 */
async function pageDrawing(page, pdfjs, viewport) {
  const ops = await page.getOperatorList();
  const O = pdfjs.OPS;
  let ctm = viewport.transform.slice();
  const stack = [];
  const rules = [],
    images = [],
    drawings = [];
  for (let i = 0; i < ops.fnArray.length; i++) {
    const fn = ops.fnArray[i],
      args = ops.argsArray[i];
    if (fn === O.save) stack.push(ctm);
    else if (fn === O.restore) ctm = stack.pop() ?? ctm;
    else if (fn === O.transform) ctm = mul(ctm, args);
    else if (fn === O.paintFormXObjectBegin) {
      stack.push(ctm);
      if (Array.isArray(args[0]) || ArrayBuffer.isView(args[0])) ctm = mul(ctm, Array.from(args[0]));
    } else if (fn === O.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    else if (
      fn === O.paintImageXObject ||
      fn === O.paintInlineImageXObject ||
      fn === O.paintImageMaskXObject ||
      fn === O.paintImageXObjectRepeat
    ) {
      const b = applyBox(ctm, 0, 0, 1, 1);
      if ((b[2] - b[0]) * (b[3] - b[1]) > 4) images.push(b);
    } else if (fn === O.constructPath) {
      const [paintOp, data, minMax] = args;
      if (!minMax || !Number.isFinite(minMax[0])) continue;
      if (paintOp === O.endPath) continue; // a clip path draws nothing
      const b = applyBox(ctm, minMax[0], minMax[1], minMax[2], minMax[3]);
      const p = data?.[0];
      let curves = 0,
        segments = 0;
      if (p && p.length !== undefined) {
        for (let k = 0; k < p.length; ) {
          const op = p[k];
          if (op === 2) {
            curves++;
            k += 7;
          } else if (op === 3) {
            curves++;
            k += 5;
          } else if (op === 4) k += 1;
          else {
            segments++;
            k += 3;
          }
        }
      }
      const w = b[2] - b[0],
        h = b[3] - b[1];
      const thin = Math.min(w, h) < 2.5 && Math.max(w, h) > 8;
      if (!curves && thin) rules.push({ box: b, horizontal: w > h });
      else if (curves || segments > 5) drawings.push(b);
      // plain rectangles (frames, shaded boxes behind code) are neither rules nor drawings
    }
  }
  return { rules, images, drawings };
}

/** Groups figure pieces (images, drawings) into regions: boxes within 6 pt of each other merge. */
function figureRegions(images, drawings) {
  const boxes = [...images, ...drawings].map((b) => b.slice());
  let merged = true;
  while (merged) {
    merged = false;
    for (let i = 0; i < boxes.length && !merged; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i],
          b = boxes[j];
        if (a[0] - 6 <= b[2] && b[0] - 6 <= a[2] && a[1] - 6 <= b[3] && b[1] - 6 <= a[3]) {
          boxes[i] = [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])];
          boxes.splice(j, 1);
          merged = true;
          break;
        }
      }
    }
  }
  // a region is a figure when it is big enough to hold one (a lone small glyph-like path is not)
  return boxes.filter((b) => b[2] - b[0] > 30 && b[3] - b[1] > 20);
}

/**
 * Reads one page: its text runs (viewport points, top-left origin) with fonts, and its drawing.
 * Returns {width, height, runs: [{text, x0, x1, top, bottom, base, size, font}], rules, figures, stats}.
 */
export async function readPage(doc, pageNumber, fontCache = new Map()) {
  const pdfjs = await loadPdfjs();
  const page = await doc.getPage(pageNumber);
  const viewport = page.getViewport({ scale: 1 });
  const drawing = await pageDrawing(page, pdfjs, viewport);
  const content = await page.getTextContent({ disableNormalization: false });
  const runs = [];
  const stats = { chars: 0, rotated: 0, junk: 0, type3: 0 };
  for (const item of content.items) {
    if (!("str" in item) || !item.str) continue;
    const m = pdfjs.Util.transform(viewport.transform, item.transform);
    const size = Math.hypot(m[2], m[3]);
    const str = item.str;
    const visible = str.replace(/\s/g, "").length;
    stats.chars += visible;
    if (Math.abs(m[1]) > 0.01 * size || Math.abs(m[2]) > 0.01 * size || m[0] <= 0) {
      stats.rotated += visible;
      continue;
    }
    if (!visible) continue;
    const style = content.styles[item.fontName] ?? {};
    const ascent = style.ascent > 0.3 && style.ascent < 1.3 ? style.ascent : 0.8;
    const descent = style.descent < 0 && style.descent > -0.6 ? style.descent : -0.22;
    const font = fontFacts(page, item.fontName, fontCache);
    if (font.type3) stats.type3 += visible;
    const x0 = m[4],
      base = m[5];
    const width = item.width * (viewport.scale ?? 1);
    runs.push({ text: str, x0, x1: x0 + width, base, top: base - ascent * size, bottom: base - descent * size, size, font });
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters in a text layer are what is counted
  for (const r of runs) for (const ch of r.text) if (/[\ufffd\ue000-\uf8ff\u0000-\u0008\u000e-\u001f]/.test(ch)) stats.junk++;
  page.cleanup();
  return {
    width: viewport.width,
    height: viewport.height,
    runs: composeAccents(runs),
    rules: drawing.rules,
    figures: figureRegions(drawing.images, drawing.drawings),
    stats,
  };
}

/**
 * Accents inside one string: TeX's OT1 fonts draw an accent glyph before its letter ("sar`a", "ˇcesky") and a cedilla
 * or ogonek after it ("c¸", "a˛"); each pair becomes the precomposed letter where Unicode has one.
 */
export function composeInline(text) {
  const join = (letter, mark, whole) => {
    const c = (letter + mark).normalize("NFC");
    return [...c].length === 1 ? c : whole;
  };
  return text
    .replace(/([`\u00b4\u00a8\u02c6\u02dc\u02c7\u02d8\u02d9\u02da\u02dd\u00af])(\p{L})/gu, (whole, a, l) =>
      a === "`" && !/[aeiouAEIOU]/.test(l) ? whole : join(l, SPACING_ACCENTS[a], whole),
    )
    .replace(/(\p{L})([\u00b8\u02db])/gu, (whole, l, a) => join(l, SPACING_ACCENTS[a], whole));
}

/** Joins a stand-alone spacing accent with the letter it sits on (OT1 fonts draw "¨" over "a"); spells out ligatures. */
function composeAccents(runs) {
  const out = [];
  for (let i = 0; i < runs.length; i++) {
    const r = { ...runs[i], text: runs[i].text.replace(/[\ufb00-\ufb06]/g, (c) => LIGATURES[c]) };
    if (!r.font.mono) r.text = composeInline(r.text);
    const mark = SPACING_ACCENTS[r.text.trim()];
    if (mark && r.text.trim().length === 1) {
      // the letter under it: the run whose character box overlaps the accent's middle (next run, or the last of the previous)
      const mid = (r.x0 + r.x1) / 2;
      const next = runs[i + 1];
      if (
        next &&
        next.x0 - 0.5 <= mid &&
        mid <= next.x0 + (next.x1 - next.x0) / Math.max(1, next.text.length) + 0.5 &&
        Math.abs(next.base - r.base) < next.size
      ) {
        const t = next.text.replace(/[\ufb00-\ufb06]/g, (c) => LIGATURES[c]);
        runs[i + 1] = { ...next, text: (t[0] + mark).normalize("NFC") + t.slice(1) };
        continue;
      }
      const prev = out[out.length - 1];
      if (prev) {
        const cw = (prev.x1 - prev.x0) / Math.max(1, prev.text.length);
        if (prev.x1 - cw - 0.5 <= mid && mid <= prev.x1 + 0.5 && Math.abs(prev.base - r.base) < prev.size) {
          prev.text = prev.text.slice(0, -1) + (prev.text.slice(-1) + mark).normalize("NFC");
          continue;
        }
      }
    }
    out.push(r);
  }
  return out;
}

/**
 * Text runs in content order → truth segments: runs on one baseline that follow left to right, split at gaps wider
 * than 0.9 em. Each segment: {text, x0, x1, top, bottom, base, size, chars: {total, bold, mono, math}, runs}.
 */
export function segmentRuns(runs) {
  const segs = [];
  let cur = null;
  for (let r of runs) {
    const text = r.text;
    const lead = /^\s/.test(text),
      trail = /\s$/.test(text);
    const t = text.replace(/\s+/g, " ").trim();
    if (!t) {
      if (cur) cur.space = true;
      continue;
    }
    if (lead || trail) {
      // the box of the characters drawn, without the run's leading and trailing spaces
      const per = (r.x1 - r.x0) / text.length;
      r = { ...r, x0: r.x0 + per * (text.length - text.trimStart().length), x1: r.x1 - per * (text.length - text.trimEnd().length) };
    }
    const em = Math.max(r.size, cur?.size ?? 0);
    const sameLine =
      cur && Math.abs(r.base - cur.base) < 0.45 * Math.max(cur.size, r.size) && r.x0 > cur.x1 - 0.6 * em && r.x0 - cur.x1 < 0.9 * em;
    if (sameLine) {
      const gap = r.x0 - cur.x1;
      // a space where the producer wrote one, or where the gap is a word space (TeX often writes none)
      const space = cur.space || lead || gap > 0.18 * Math.min(r.size, cur.size) ? " " : "";
      cur.text += space + t;
      cur.x1 = Math.max(cur.x1, r.x1);
      // a superscript / subscript does not move the line's box much; a bigger run does
      if (r.size >= 0.8 * cur.size) {
        cur.top = Math.min(cur.top, r.top);
        cur.bottom = Math.max(cur.bottom, r.bottom);
      }
      if (r.size > cur.size) {
        cur.size = r.size;
        cur.base = r.base;
      }
    } else {
      if (cur) segs.push(cur);
      cur = {
        text: t,
        x0: r.x0,
        x1: r.x1,
        top: r.top,
        bottom: r.bottom,
        base: r.base,
        size: r.size,
        chars: { total: 0, bold: 0, mono: 0, math: 0, letters: 0, sizes: [] },
      };
    }
    const n = t.replace(/\s/g, "").length;
    cur.chars.total += n;
    if (r.font.bold) cur.chars.bold += n;
    if (r.font.mono) cur.chars.mono += n;
    if (r.font.math) cur.chars.math += n;
    // letters of words in text fonts (operator names like sin, max, lim do not count): few of them, and math, is a formula
    else cur.chars.letters += t.replace(/\b(sin|cos|tan|log|ln|exp|lim|max|min|sup|inf|det|mod)\b/g, "").replace(/[^\p{L}]/gu, "").length;
    cur.chars.sizes.push([r.size, n]);
    cur.space = trail;
  }
  if (cur) segs.push(cur);
  for (const s of segs) delete s.space;
  return segs;
}

/** Visual lines: segments on one baseline (content order kept), each {segs, top, bottom, base, x0, x1, size}. */
function visualLines(segs) {
  const lines = [];
  for (const s of segs) {
    const last = lines[lines.length - 1];
    if (last && Math.abs(s.base - last.base) < 0.45 * Math.max(last.size, s.size) && s.x0 >= last.x1 - 0.6 * s.size) {
      last.segs.push(s);
      last.x1 = Math.max(last.x1, s.x1);
      last.top = Math.min(last.top, s.top);
      last.bottom = Math.max(last.bottom, s.bottom);
      last.size = Math.max(last.size, s.size);
    } else lines.push({ segs: [s], top: s.top, bottom: s.bottom, base: s.base, x0: s.x0, x1: s.x1, size: s.size });
  }
  return lines;
}

/** The body font size: the size most characters are set in. */
function bodySize(segs) {
  const count = new Map();
  for (const s of segs)
    for (const [size, n] of s.chars.sizes) {
      const k = Math.round(size * 2) / 2;
      count.set(k, (count.get(k) ?? 0) + n);
    }
  let best = 10,
    most = -1;
  for (const [k, n] of count)
    if (n > most) {
      best = k;
      most = n;
    }
  return best;
}

function normaliseFurniture(text) {
  return text
    .toLowerCase()
    .replace(/\b[ivxlc]+\b/g, "#")
    .replace(/\d+/g, "#")
    .replace(/\s+/g, " ")
    .trim();
}
const PAGE_NUMBER =
  /^(\d{1,4}|[ivxlcdm]{1,7}|[IVXLCDM]{1,7}|[-–—]\s*\d{1,4}\s*[-–—]|(page|seite|página|pagina|strona|strana|p\.)\s*\d{1,4}(\s*(of|\/|de|di|z)\s*\d{1,4})?)$/i;

/**
 * Candidates for running headers and footers on one page: the top-most and bottom-most visual lines when they
 * stand apart from the rest (a gap of at least 1.3 body lines) and lie in the page's outer fifth.
 */
function edgeLines(lines, height, body) {
  const sorted = [...lines].sort((a, b) => a.base - b.base);
  const out = { top: null, bottom: null };
  if (sorted.length < 2) return out;
  const first = sorted[0],
    second = sorted.find((l) => l.base > first.base + 0.5 * body);
  if (first.base < height * 0.2 && (!second || second.top - first.bottom > 0.7 * body)) out.top = first;
  const last = sorted[sorted.length - 1],
    before = [...sorted].reverse().find((l) => l.base < last.base - 0.5 * body);
  if (last.base > height * 0.8 && (!before || last.top - before.bottom > 0.7 * body)) out.bottom = last;
  return out;
}

/**
 * Running headers, footers and page numbers of a document, from several of its pages (each readPage()'s result).
 * Returns one {top, bottom} per page: "header" | "pagenum" | null (bottom: "footer" | "pagenum" | null).
 */
export function documentFurniture(pages) {
  const info = pages.map((p) => {
    const segs = segmentRuns(p.runs);
    const body = bodySize(segs);
    return { edges: edgeLines(visualLines(segs), p.height, body), body };
  });
  const textCount = new Map(),
    posCount = new Map();
  const keyText = (side, l) => side + ":" + normaliseFurniture(l.segs.map((s) => s.text).join(" "));
  const keyPos = (side, l) => side + ":" + Math.round(l.base / 2);
  for (const { edges } of info) {
    for (const side of ["top", "bottom"]) {
      const l = edges[side];
      if (!l) continue;
      textCount.set(keyText(side, l), (textCount.get(keyText(side, l)) ?? 0) + 1);
      posCount.set(keyPos(side, l), (posCount.get(keyPos(side, l)) ?? 0) + 1);
    }
  }
  const need = Math.max(2, Math.ceil(pages.length * 0.3));
  return info.map(({ edges, body }) => {
    const out = { top: null, bottom: null };
    for (const side of ["top", "bottom"]) {
      const l = edges[side];
      if (!l) continue;
      const text = l.segs
        .map((s) => s.text)
        .join(" ")
        .trim();
      const small = l.size <= body * 1.15;
      if (PAGE_NUMBER.test(text) && small) out[side] = "pagenum";
      else if (small && (textCount.get(keyText(side, l)) >= need || (posCount.get(keyPos(side, l)) >= need && text.length < 120)))
        out[side] = side === "top" ? "header" : "footer";
    }
    return out;
  });
}

const BULLET = /^([•◦▪▸►‣∙·–—*]|\u2219|\u25cf|\u25cb)$/;

function escapeHtml(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * Finds tables: groups of ≥ 2 horizontal rules (similar left and right ends, within 2 pt... 8 pt) with visual lines
 * between them whose segments fall into ≥ 2 columns on ≥ 2 rows. Returns [{box, rows: [[seg, …], …]}] and marks the
 * lines it uses (line.table = index).
 */
function findTables(vlines, rules, body) {
  const hr = rules
    .filter((r) => r.horizontal && r.box[2] - r.box[0] > 40)
    .map((r) => r.box)
    .sort((a, b) => a[1] - b[1]);
  const groups = [];
  for (const r of hr) {
    const g = groups.find((g) => Math.abs(g.x0 - r[0]) < 8 && Math.abs(g.x1 - r[2]) < 8 && r[1] - g.ys[g.ys.length - 1] < 30 * body);
    if (g) g.ys.push(r[1]);
    else groups.push({ x0: r[0], x1: r[2], ys: [r[1]] });
  }
  const tables = [];
  for (const g of groups) {
    if (g.ys.length < 2) continue;
    const top = g.ys[0],
      bottom = g.ys[g.ys.length - 1];
    const inside = vlines.filter((l) => l.base > top && l.top < bottom && l.x0 >= g.x0 - 4 && l.x1 <= g.x1 + 4);
    if (inside.length < 2 || inside.some((l) => l.table !== undefined)) continue;
    // every line of the region must lie within it; a line crossing the rules means this is not a table
    if (vlines.some((l) => !inside.includes(l) && l.base > top && l.top < bottom && l.x1 > g.x0 && l.x0 < g.x1)) continue;
    const multi = inside.filter((l) => l.segs.length >= 2).length;
    if (multi < 2 || multi < inside.length * 0.5) continue;
    const index = tables.length;
    for (const l of inside) l.table = index;
    tables.push({ box: [g.x0, top, g.x1, bottom], rows: inside.map((l) => l.segs) });
  }
  return tables;
}

/**
 * A table's columns: the x-ranges of the cells of its fullest rows, merged where they overlap; a cell of another row
 * belongs to the column it overlaps most (else the nearest), so a row with an empty cell keeps its cells under their
 * headings (<td></td> for the empty one).
 */
function tableColumns(rows) {
  const most = Math.max(...rows.map((r) => r.length));
  const cols = [];
  for (const row of rows.filter((r) => r.length === most)) {
    row.forEach((s, i) => {
      if (!cols[i]) cols[i] = [s.x0, s.x1];
      else cols[i] = [Math.min(cols[i][0], s.x0), Math.max(cols[i][1], s.x1)];
    });
  }
  return cols;
}
function columnOf(cols, s) {
  let best = 0,
    score = -Infinity;
  cols.forEach(([a, b], i) => {
    const overlap = Math.min(b, s.x1) - Math.max(a, s.x0);
    const v = overlap > 0 ? overlap : -Math.min(Math.abs(a - s.x1), Math.abs(s.x0 - b));
    if (v > score) {
      score = v;
      best = i;
    }
  });
  return best;
}

/**
 * The truth of one page, or {drop: reason}. furniture: documentFurniture()'s entry for the page. formulas: for a
 * document typeset from a known source, the LaTeX of its display formulas in order (a queue, consumed): each formula
 * line becomes a block \\[source\\] instead of being left out. latin: keep pages with letters of any Latin script.
 * Reasons: no-text, rotated-text, text-layer (unmapped glyphs), charset (characters the model cannot write), figure,
 * formula, order (content order jumps back up within a column), few-lines.
 */
export function pageTruth(page, furniture = { top: null, bottom: null }, { formulas = null, latin = false } = {}) {
  const { width, height, runs, stats } = page;
  if (stats.chars < 150) return { drop: "no-text" };
  if (stats.rotated > 0.05 * stats.chars) return { drop: "rotated-text" };
  if (stats.junk > 0.005 * stats.chars || stats.type3 > 0.2 * stats.chars) return { drop: "text-layer" };
  const segs = segmentRuns(runs.filter((r) => r.x1 > 0 && r.x0 < width && r.base > 0 && r.top < height));
  const body = bodySize(segs);
  const vlines = visualLines(segs);
  // figures: lines mostly inside a figure region are its labels
  let figureArea = 0;
  for (const f of page.figures) figureArea += (f[2] - f[0]) * (f[3] - f[1]);
  if (figureArea > 0.4 * width * height) return { drop: "figure" };
  for (const l of vlines) {
    const cx = (l.x0 + l.x1) / 2,
      cy = (l.top + l.bottom) / 2;
    if (page.figures.some((f) => cx >= f[0] && cx <= f[2] && cy >= f[1] && cy <= f[3])) l.kind = "figure";
  }
  // furniture: the edge lines documentFurniture() named
  const edges = edgeLines(vlines, height, body);
  if (furniture.top && edges.top) edges.top.kind = furniture.top;
  if (furniture.bottom && edges.bottom) edges.bottom.kind = furniture.bottom;
  for (const l of vlines) {
    if (l.kind) continue;
    const c = l.segs.reduce(
      (a, s) => ({
        total: a.total + s.chars.total,
        mono: a.mono + s.chars.mono,
        math: a.math + s.chars.math,
        bold: a.bold + s.chars.bold,
        letters: a.letters + s.chars.letters,
      }),
      { total: 0, mono: 0, math: 0, bold: 0, letters: 0 },
    );
    l.chars = c;
    if (c.math > 0.4 * c.total || (c.math >= 1 && c.letters <= 6)) l.kind = "formula";
    else if (c.mono > 0.9 * c.total) l.kind = "code";
  }
  const bodyLines = vlines.filter((l) => !["header", "footer", "pagenum", "figure"].includes(l.kind));
  if (bodyLines.length < 5) return { drop: "few-lines" };
  const formulaSources = formulas;
  const formulaCount = bodyLines.filter((l) => l.kind === "formula").length;
  if (!formulaSources && formulaCount > 0.2 * bodyLines.length) return { drop: "formula" };
  // reading order check: no body line may start above its predecessor while overlapping it horizontally
  for (let i = 1; i < bodyLines.length; i++) {
    const a = bodyLines[i - 1],
      b = bodyLines[i];
    if (a.kind === "figure" || b.kind === "figure") continue;
    const overlap = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
    if (b.base < a.base - 0.5 * Math.min(a.size, b.size) && overlap > 0.2 * Math.min(a.x1 - a.x0, b.x1 - b.x0)) return { drop: "order" };
  }
  const tables = findTables(bodyLines, page.rules, body);
  // characters the model's vocabulary lacks (math symbols, Greek, CJK): a page with more than a few is dropped
  let outside = 0,
    total = 0;
  for (const l of bodyLines)
    if (l.kind !== "formula")
      for (const s of l.segs) {
        const t = clean(s.text);
        total += t.length;
        outside += outsideVocabulary(t, latin);
      }
  if (outside > 0.005 * total) return { drop: "charset" };

  // blocks in reading order: header(s) first, body in content order, footer(s) last
  const blocks = [],
    lines = [];
  const addBlock = (kind, md, parts) => {
    const b = blocks.length;
    for (const p of parts)
      lines.push({
        box: round([p.x0, p.top, p.x1, p.bottom]),
        text: p.text,
        ...(p.md !== undefined && p.md !== p.text ? { md: p.md } : {}),
        block: b,
        kind,
      });
    const xs = parts.map((p) => [p.x0, p.top, p.x1, p.bottom]);
    blocks.push({
      kind,
      md,
      box: round([
        Math.min(...xs.map((q) => q[0])),
        Math.min(...xs.map((q) => q[1])),
        Math.max(...xs.map((q) => q[2])),
        Math.max(...xs.map((q) => q[3])),
      ]),
    });
  };
  const segText = (s) => clean(s.text);
  const furnitureBlock = (l) => {
    const parts = l.segs.map((s) => ({ ...s, text: segText(s) })).filter((p) => p.text);
    if (parts.length) addBlock(l.kind, parts.map((p) => p.text).join(" "), parts);
  };
  for (const l of vlines) if (l.kind === "header" || (l.kind === "pagenum" && l === edges.top)) furnitureBlock(l);

  let para = null; // {kind, level, parts, right}
  const flush = () => {
    if (!para) return;
    const parts = para.parts.filter((p) => p.text);
    if (parts.length) {
      let md;
      if (para.kind === "code")
        md =
          "```\n" +
          para.rows
            .map((row) =>
              row
                .filter((p) => p.text)
                .map((p) => p.text)
                .join(" "),
            )
            .filter(Boolean)
            .join("\n") +
          "\n```";
      else {
        md = "";
        parts.forEach((p, i) => {
          md += (i && !parts[i - 1].join ? " " : "") + (p.md ?? p.text);
        });
        if (para.kind === "heading") md = "#".repeat(para.level) + " " + md;
        if (para.kind === "list") md = "- " + md;
      }
      addBlock(para.kind, md, parts);
    }
    para = null;
  };
  let prev = null,
    lastFormula = null;
  const emittedTables = new Set();
  for (const l of bodyLines) {
    if (l.table !== undefined) {
      if (!emittedTables.has(l.table)) {
        flush();
        emittedTables.add(l.table);
        const t = tables[l.table];
        const parts = [];
        const columns = tableColumns(t.rows);
        const rowsMd = t.rows.map((row) => {
          const cells = new Array(columns.length).fill("");
          for (const s of row) {
            const text = segText(s);
            parts.push({ ...s, text, md: escapeHtml(text) });
            const c = columnOf(columns, s);
            cells[c] = cells[c] ? cells[c] + " " + escapeHtml(text) : escapeHtml(text);
          }
          return "<tr>" + cells.map((c) => `<td>${c}</td>`).join("") + "</tr>";
        });
        // data.py looks each line's text up in the Markdown: a cell's text as escaped there
        addBlock(
          "table",
          "<table>" + rowsMd.join("") + "</table>",
          parts.filter((p) => p.text),
        );
      }
      prev = null;
      continue;
    }
    if (l.kind === "formula" && formulaSources) {
      flush();
      // a formula's pieces on other baselines (a big operator, limits, a fraction) are the same formula
      const last = lines[lines.length - 1];
      const beside =
        l.top < lastFormula?.bottom &&
        l.bottom > lastFormula?.top &&
        l.x0 < lastFormula?.x1 + 2 * body &&
        l.x1 > lastFormula?.x0 - 2 * body;
      const under = l.top < lastFormula?.bottom + 0.3 * body && l.x0 < lastFormula?.x1 && l.x1 > lastFormula?.x0;
      if (lastFormula && last === lastFormula.line && (beside || under)) {
        last.box = round([
          Math.min(last.box[0], l.x0),
          Math.min(last.box[1], l.top),
          Math.max(last.box[2], l.x1),
          Math.max(last.box[3], l.bottom),
        ]);
        last.text += " " + l.segs.map((s) => clean(s.text)).join(" ");
        blocks[blocks.length - 1].box = last.box;
        lastFormula = { line: last, x0: last.box[0], x1: last.box[2], top: last.box[1], bottom: last.box[3] };
        continue;
      }
      if (!formulaSources.length) throw new Error("truth: more display formulas on the page than in the source");
      const md = "\\[" + formulaSources.shift() + "\\]";
      const text = l.segs.map((s) => clean(s.text)).join(" ");
      addBlock("formula", md, [{ x0: l.x0, x1: l.x1, top: l.top, bottom: l.bottom, text, md }]);
      lastFormula = { line: lines[lines.length - 1], x0: l.x0, x1: l.x1, top: l.top, bottom: l.bottom };
      prev = null;
      continue;
    }
    lastFormula = null;
    if (l.kind === "formula" || l.kind === "figure") {
      flush();
      prev = null;
      continue;
    }
    const size = Math.max(...l.segs.map((s) => s.size));
    const ratio = size / body;
    const boldShare = l.chars.bold / Math.max(1, l.chars.total);
    const kind = l.kind === "code" ? "code" : (ratio >= 1.08 && boldShare > 0.6) || ratio >= 1.3 ? "heading" : "para";
    const level = ratio >= 1.7 ? 1 : ratio >= 1.3 ? 2 : 3;
    const parts = l.segs.map((s) => ({ ...s, text: segText(s) }));
    // a list item: a bullet glyph apart from its text
    let bullet = false;
    if (kind === "para" && parts.length >= 2 && BULLET.test(parts[0].text)) {
      parts.shift();
      bullet = true;
    } else if (kind === "para" && /^[•◦▪‣∙]\s/.test(parts[0].text)) {
      parts[0] = { ...parts[0], md: parts[0].text.replace(/^[•◦▪‣∙]\s+/, "") };
      bullet = true;
    }
    const gap = prev ? l.top - prev.bottom : 0;
    // a list item's next line (no bullet, under the item, after a full line) continues the item
    const continues =
      !bullet &&
      kind === "para" &&
      para?.kind === "list" &&
      prev &&
      gap < 0.9 * body &&
      l.x0 > para.left - 0.3 * body &&
      prev.x1 > para.right - 2 * body;
    const newBlock =
      !para ||
      (!continues && para.kind !== (bullet ? "list" : kind)) ||
      bullet ||
      (kind === "heading" && para.level !== level) ||
      gap > 0.9 * body ||
      l.x0 > prev.x1 ||
      (kind === "para" &&
        !continues &&
        prev &&
        (prev.x1 < para.right - 2 * body || (para.rows.length >= 2 && prev.x0 <= para.left + 0.3 * body && l.x0 > para.left + 0.8 * body)));
    if (newBlock) {
      flush();
      para = { kind: bullet ? "list" : kind, level, parts: [], rows: [], left: l.x0, right: l.x1 };
    }
    para.right = Math.max(para.right, l.x1);
    if (para.kind !== "list") para.left = Math.min(para.left, l.x0);
    // hyphenation: a line ending "letter-" followed by a lower-case letter joins the word (as the generator's md)
    if (para.parts.length && kind !== "code") {
      const last = para.parts[para.parts.length - 1];
      if (/\p{L}-$/u.test(last.text) && /^\p{Ll}/u.test(parts[0].text)) {
        last.md = (last.md ?? last.text).slice(0, -1);
        last.join = true;
      }
    }
    para.parts.push(...parts);
    para.rows.push(parts);
    prev = l;
  }
  flush();
  for (const l of vlines) if (l.kind === "footer" || (l.kind === "pagenum" && l !== edges.top)) furnitureBlock(l);
  if (!lines.length) return { drop: "few-lines" };
  const markdown = blocks.map((b) => b.md).join("\n\n");
  // every line must be found, in order, in the Markdown (what data.py relies on)
  let at = 0;
  for (const l of lines) {
    const i = markdown.indexOf(l.md ?? l.text, at);
    if (i < 0) throw new Error(`truth: line ${JSON.stringify(l.text)} not found in order in the page Markdown`);
    at = i + (l.md ?? l.text).length;
  }
  const kinds = {};
  for (const b of blocks) kinds[b.kind] = (kinds[b.kind] ?? 0) + 1;
  return {
    width: round1(width),
    height: round1(height),
    body,
    markdown,
    blocks,
    lines,
    kinds,
    tables: tables.length,
    formulas: formulaCount,
    figures: page.figures.length,
  };
}

function round1(v) {
  return Math.round(v * 100) / 100;
}
function round(b) {
  return b.map(round1);
}
