// A page's blocks from its lines: each line's box and the Markdown written for it (line-unit models) grow into
// blocks with a role and a box in page pixels; running headers, footers and page numbers are told from geometry.
import type { Block, BlockLine } from "../output/schema.js";
import { bulletItems, formFields, splitTables, TABLE_TAG, tableGrid, writeTable, type TableGrid, type TableStyle } from "./table.js";
import { tablesByGeometry } from "./table-geometry.js";
import { median, type Extent } from "./xycut.js";

/** One line of a page, in reading order: its box (page pixels) and the Markdown written for it, its separator first. */
export interface PageLine {
  box: Extent;
  markdown: string;
}

/** A role given to a line from where it sits on the page (see marginRoles). */
export type MarginRole = "header" | "footer" | "page-number";

/** Roles whose blocks stay out of the Markdown unless asked for (--keep-headers). */
export const MARGIN_ROLES: ReadonlySet<string> = new Set<MarginRole>(["header", "footer", "page-number"]);

export interface MarkdownOptions {
  /** put running headers, footers and page numbers back into the Markdown */
  keepHeaders?: boolean;
  /** how tables are written: balanced HTML (default) or Markdown pipe tables where no cell spans */
  tables?: TableStyle;
}

/**
 * The Markdown a block stands for, kept beside the block without being part of the JSON (its text drops the
 * heading hashes, list marker, fences). Set by the engines that know it, read by blockMarkdown.
 */
const BLOCK_MARKDOWN = new WeakMap<Block, string>();

export function setBlockMarkdown(block: Block, markdown: string): Block {
  BLOCK_MARKDOWN.set(block, markdown);
  return block;
}

/** A block's Markdown: a table from its grid (in the style asked for), else what the engine wrote for it. */
export function blockMarkdown(block: Block, options: MarkdownOptions = {}): string {
  if (block.table) return writeTable(block.table, options.tables);
  const known = BLOCK_MARKDOWN.get(block);
  if (known !== undefined) return known;
  switch (block.type) {
    case "title":
      return `# ${block.text}`;
    case "heading":
      return `${"#".repeat(Math.min(6, Math.max(1, block.level ?? 2)))} ${block.text}`;
    case "list-item":
      return `${block.marker ?? "-"} ${block.text}`;
    case "code":
      return "```\n" + block.text + "\n```";
    case "formula":
      return `$$${block.text}$$`;
    default:
      return block.text;
  }
}

/** True when every block of a page knows its Markdown, so the page's Markdown can be written again from them. */
export function blocksCarryMarkdown(blocks: readonly Block[]): boolean {
  return blocks.every((b) => b.table !== undefined || BLOCK_MARKDOWN.has(b));
}

/**
 * A page's Markdown from its blocks, a blank line between blocks (one newline between list items: a tight list);
 * margin blocks (headers, footers, page numbers) only when asked for.
 */
export function pageMarkdown(blocks: readonly Block[], options: MarkdownOptions = {}): string {
  let out = "";
  let previous: Block | undefined;
  for (const b of blocks) {
    if (!options.keepHeaders && MARGIN_ROLES.has(b.type)) continue;
    const text = blockMarkdown(b, options).trim();
    if (!text) continue;
    out += !previous ? text : (previous.type === "list-item" && b.type === "list-item" ? "\n" : "\n\n") + text;
    previous = b;
  }
  return out;
}

// ---- geometry of running headers and footers

/** A header or footer sits in this share of the page height at its top or bottom. */
const MARGIN_BAND = 0.12;
/** A page number alone, or a running head with its page number set apart from it, may sit this far in (LaTeX's
 * default A4 page puts its folio at 83 % of the page height). */
const FOLIO_BAND = 0.2;
/** Body text does not reach into the outermost share of the page: rows there need only FOLIO_SEPARATION, and a
 * line the decoder wrote as a heading is no heading at the very foot. */
const OUTER_BAND = 0.06;
/** A split row (a running head at one edge and its other part at the other): the gap between two of its pieces is
 * at least this share of the page's text width, and no piece is wider than SPLIT_PIECE of it. */
const SPLIT_GAP = 0.25;
const SPLIT_PIECE = 0.45;
/** A line set flush right ends within this share of the text width from its right edge. */
const FLUSH = 0.05;
/** A split row's lines may be this many median line heights tall (a running head set in another face). */
const SPLIT_HEIGHT = 1.5;
/** The line pitch is taken as at least this share of the median line height (detector boxes of close-set lines
 * overlap, so the pitch may be shorter than a box). */
const PITCH_FLOOR = 0.6;
/** …and is set apart from the body by at least this many line pitches (centre to centre)… */
const MARGIN_SEPARATION = 2;
/** …or, for a page number, this many. */
const FOLIO_SEPARATION = 1.3;
/** Its lines are no taller than this many median line heights (a large title at the top is not a header). */
const MARGIN_HEIGHT = 1.3;
/** At most this many rows at either end of a page are headers or footers. */
const MARGIN_ROWS = 3;
/** Text longer than this is body text, not a running header (a conference's head set across a two-column page runs
 * to some 110 characters). */
const MARGIN_CHARS = 130;

/** A page number as printed: 12, - 12 -, (xii), Page 3, 3 of 10, 3/10. */
const FOLIO =
  /^(?:(?:page|p\.|seite|página|pagina|стр\.?|страница)\s*)?[-–—(\[]?\s*(?:\d{1,4}|[ivxlcdm]{1,7})\s*[-–—)\]]?(?:\s*(?:of|\/|von|de|из|sur)\s*\d{1,4})?$/i;

export function isPageNumber(text: string): boolean {
  return FOLIO.test(text.trim());
}

/** A line's text without its separator, heading hashes or emphasis markers. */
export function plainLine(markdown: string): string {
  return markdown
    .replace(/<[^>]+>/g, " ")
    .replace(/^\s*#{1,6}\s+/, "")
    .replace(/[*_`]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

const height = (b: Extent) => b.yMax - b.yMin;
const centreY = (b: Extent) => (b.yMin + b.yMax) / 2;

/** Lines level with each other (a y overlap of half the shorter height) form rows, top to bottom. */
function rowsOf(indices: number[], boxes: readonly Extent[]): number[][] {
  const rows: { members: number[]; yMin: number; yMax: number }[] = [];
  for (const i of [...indices].sort((a, b) => boxes[a]!.yMin - boxes[b]!.yMin)) {
    const b = boxes[i]!;
    const row = rows.find((r) => Math.min(r.yMax, b.yMax) - Math.max(r.yMin, b.yMin) >= 0.5 * Math.min(r.yMax - r.yMin, height(b)));
    if (row) {
      row.members.push(i);
      row.yMin = Math.min(row.yMin, b.yMin);
      row.yMax = Math.max(row.yMax, b.yMax);
    } else rows.push({ members: [i], yMin: b.yMin, yMax: b.yMax });
  }
  return rows.sort((a, b) => a.yMin - b.yMin).map((r) => r.members);
}

/**
 * The page's line pitch: the median distance, centre to centre, from a line to the nearest one below it that
 * shares some of its width (the next line of its column).
 */
export function linePitch(boxes: readonly Extent[]): number {
  const steps: number[] = [];
  for (const a of boxes) {
    let best = Infinity;
    for (const b of boxes) {
      if (b === a || centreY(b) <= centreY(a) + 0.3 * height(a)) continue;
      if (Math.min(a.xMax, b.xMax) - Math.max(a.xMin, b.xMin) <= 0) continue;
      best = Math.min(best, centreY(b) - centreY(a));
    }
    if (Number.isFinite(best)) steps.push(best);
  }
  return median(steps);
}

/**
 * A line that reads as a sentence of body text (several words and a full stop), a paragraph run over from the
 * page before (opening with a lower-case letter, where it `mayRunOver`: not set apart across the page or towards
 * its right edge, as "spreadtab" or "the Working Papers of …" in a running head are), or, at the foot of the page, a
 * footnote, is no running header or footer (at the top, "5 INTERPRETING THE RESULTS" is a section's running head).
 */
function bodyLike(text: string, foot: boolean, mayRunOver = true): boolean {
  const words = text.split(/\s+/).filter(Boolean).length;
  return (
    (words >= 5 && /[.!?]["'”’)]?$/.test(text)) ||
    (mayRunOver && /^\p{Ll}/u.test(text)) ||
    (foot && /^(?:\d{1,2}|[*†‡§¶¹²³⁴⁵⁶⁷⁸⁹])\s*[A-Za-zÀ-ÿА-я]\S*\s+\S+\s+\S+/.test(text))
  );
}

/**
 * Running headers, footers and page numbers of one page, told by geometry: rows of lines in the top (bottom)
 * MARGIN_BAND of the page, no taller than body lines, short, not body-like sentences, and set apart from the
 * rest by an empty band of at least MARGIN_SEPARATION line pitches. FOLIO_SEPARATION is enough for rows of page
 * numbers, short text with a page number at its left or right end (a running head and its folio, in a box of its
 * own or, flush right, in the head's), split rows
 * (pieces at both edges with a wide gap between) and rows in the OUTER_BAND. A page number alone, or a split row
 * with its page number, may lie as far in as FOLIO_BAND. A single page has nothing to repeat, so this is all it
 * has; a first line of body text at the top of a page follows the page's own pitch and stays body.
 * `texts`: each line's plain text.
 */
export function marginRoles(
  boxes: readonly Extent[],
  texts: readonly string[],
  pageHeight: number,
  headings?: readonly boolean[],
): Map<number, MarginRole> {
  const roles = new Map<number, MarginRole>();
  const usable = boxes.map((_, i) => i).filter((i) => texts[i]!.trim().length > 0);
  if (usable.length < 3 || pageHeight <= 0) return roles;
  const h = median(usable.map((i) => height(boxes[i]!)));
  const pitch = Math.max(linePitch(usable.map((i) => boxes[i]!)), PITCH_FLOOR * h) || h;
  const rows = rowsOf(usable, boxes);
  const textLeft = Math.min(...usable.map((i) => boxes[i]!.xMin));
  const textWidth = Math.max(...usable.map((i) => boxes[i]!.xMax)) - textLeft;
  const rowTop = (r: number[]) => Math.min(...r.map((i) => boxes[i]!.yMin));
  const rowBottom = (r: number[]) => Math.max(...r.map((i) => boxes[i]!.yMax));
  const rowCentre = (r: number[]) => median(r.map((i) => centreY(boxes[i]!)));
  const outer = (r: number[]) => rowCentre(r) <= OUTER_BAND * pageHeight || rowCentre(r) >= (1 - OUTER_BAND) * pageHeight;
  const byX = (r: number[]) => [...r].sort((a, b) => boxes[a]!.xMin - boxes[b]!.xMin);
  const split = (r: number[]) => {
    const xs = byX(r);
    return (
      xs.some((i, k) => k > 0 && boxes[i]!.xMin - boxes[xs[k - 1]!]!.xMax >= SPLIT_GAP * textWidth) &&
      xs.every((i) => boxes[i]!.xMax - boxes[i]!.xMin <= SPLIT_PIECE * textWidth)
    );
  };
  // set in from the text's left edge by a quarter of its width, yet reaching its right edge (a head set flush right)
  const flushRight = (i: number) => boxes[i]!.xMax >= textLeft + (1 - FLUSH) * textWidth;
  const inset = (i: number) => boxes[i]!.xMin - textLeft >= SPLIT_GAP * textWidth && flushRight(i);
  // a head whose page number the detector kept in its box ("… a Long Title Is Used 3"), set flush right
  const endsInFolio = (i: number) => /\S\s+\d{1,4}$/.test(texts[i]!.trim()) && flushRight(i);
  const marginLike = (r: number[], foot: boolean) => {
    const tallest = split(r) ? SPLIT_HEIGHT : MARGIN_HEIGHT;
    // the decoder writes a lone short line as a heading; at the very foot of the page it is none, nor is a piece of a
    // split row (a running head's title at one edge, its authors at the other)
    const heading = (i: number) => headings?.[i] && !isPageNumber(texts[i]!) && !(foot && outer(r)) && !split(r);
    return (
      r.every(
        (i) => height(boxes[i]!) <= tallest * h && !heading(i) && !bodyLike(texts[i]!, foot, !split(r) && !inset(i) && !endsInFolio(i)),
      ) && r.reduce((n, i) => n + texts[i]!.length, 0) <= MARGIN_CHARS
    );
  };
  const folios = (r: number[]) => r.every((i) => isPageNumber(texts[i]!));
  // a running head set with its page number: short text and a page number at the row's left or right end
  const withFolio = (r: number[]) => {
    const xs = byX(r);
    if (endsInFolio(xs[xs.length - 1]!)) return true;
    if (r.length < 2) return false;
    return isPageNumber(texts[xs[0]!]!) || isPageNumber(texts[xs[xs.length - 1]!]!);
  };
  const near = (r: number[]) => folios(r) || withFolio(r) || split(r) || outer(r);
  // rows [0, k] at the top (or the last k + 1 at the bottom) are margin rows when all lie in the band, all look
  // like margin text, and the band between row k and the next is wide enough
  const take = (
    ordered: number[][],
    inBand: (r: number[], band: number) => boolean,
    distance: (a: number[], b: number[]) => number,
    body: MarginRole,
  ) => {
    for (let k = 0; k < Math.min(MARGIN_ROWS, ordered.length - 1); k++) {
      const row = ordered[k]!;
      const folioRow = folios(row) || (withFolio(row) && split(row));
      if (!(inBand(row, MARGIN_BAND) || (folioRow && inBand(row, FOLIO_BAND))) || !marginLike(row, body === "footer")) return;
      const all = ordered.slice(0, k + 1);
      const needed = all.every(near) ? FOLIO_SEPARATION : MARGIN_SEPARATION;
      if (distance(row, ordered[k + 1]!) >= needed * pitch && (all.every(folios) || usable.length >= 4)) {
        for (const r of all) for (const i of r) roles.set(i, isPageNumber(texts[i]!) ? "page-number" : body);
        return;
      }
    }
  };
  take(
    rows,
    (r, band) => rowBottom(r) <= band * pageHeight || rowCentre(r) <= band * pageHeight,
    (a, b) => rowCentre(b) - rowCentre(a),
    "header",
  );
  const reversed = [...rows].reverse().filter((r) => !r.some((i) => roles.has(i)));
  take(
    reversed,
    (r, band) => rowTop(r) >= (1 - band) * pageHeight || rowCentre(r) >= (1 - band) * pageHeight,
    (a, b) => rowCentre(a) - rowCentre(b),
    "footer",
  );
  return roles;
}

// ---- blocks from lines

const LIST_MARKER = /^([-*+•●▪◦‣–]|\(?\d{1,4}[.)]|\(?[a-zA-Z][.)]|\([ivx]{1,5}\))\s+/;
const HEADING = /^(#{1,6})\s+/;
const CAPTION =
  /^(?:\*\*|_)?(?:figure|fig\.|table|tab\.|listing|chart|plate|exhibit|scheme|algorithm|abbildung|abb\.|tabelle|tabla|figura|tableau|рис\.|рисунок|таблица|图|表)\s*[\dIVXivx]/i;
const FOOTNOTE = /^(?:\d{1,3}|[*†‡§¶]|[¹²³⁴⁵⁶⁷⁸⁹⁰]+)\s*\S/;
/** A footnote's mark with its first word's capital touching it ("5There"). */
const MARK_TOUCHING = /^(\d{1,3}|[¹²³⁴⁵⁶⁷⁸⁹⁰]+)(?=\p{Lu}\p{Ll})/u;

/** Offsets [start, end) of the pieces of a stretch of Markdown that are blocks: split at blank lines (never
 * inside a fenced code block or a $$ formula) and before each list item. */
function textBlocks(text: string, offset: number): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  let fence = false;
  let math = false;
  const lines = text.split("\n");
  let at = 0;
  const push = (end: number) => {
    if (text.slice(start, end).trim()) out.push([offset + start, offset + end]);
    start = end;
  };
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k]!;
    const trimmed = line.trim();
    const lineStart = at;
    at += line.length + 1;
    if (fence) {
      if (trimmed.startsWith("```")) fence = false;
      continue;
    }
    if (math) {
      if (trimmed.endsWith("$$")) math = false;
      continue;
    }
    if (trimmed === "") {
      push(lineStart);
      continue;
    }
    if (trimmed.startsWith("```")) {
      push(lineStart);
      fence = true;
      continue;
    }
    if (trimmed.startsWith("$$")) {
      push(lineStart);
      math = !(trimmed.length > 2 && trimmed.slice(2).trimEnd().endsWith("$$"));
      continue;
    }
    // a list item starts a block of its own, as does a heading
    if (k > 0 && (LIST_MARKER.test(trimmed) || HEADING.test(trimmed))) push(lineStart);
  }
  push(text.length);
  return out;
}

/** A fence that closes a code block: bare, with a blank line or nothing after it ("\n```\n\n## Next"). */
const CLOSING_FENCE = /(^|\n)```(?=\n\n|\n?$)/y;
const ANY_FENCE = /(^|\n)```[\w-]*(?=\n|$)/g;

/**
 * A line's Markdown with its code fences kept in step with the blocks before it (`open`: a fence is open as the
 * line begins). The decoder writes fences as separators between lines, and misses one now and then: a line it
 * closes a block with when none is open ("-s" of a signature read as code, then "\n```\n\nd", then
 * "\n```\n\n### Les pièces …") would open one that swallows the rest of the page, so that fence is dropped. A
 * fence opening a block while one is open closes it (the decoder lost count: what follows is as often prose it had
 * taken for code, la-huaz-p2, as a listing of its own), and so does a heading the decoder begins a line
 * with after a blank line ("\n\n## 2.3 Text cells": it writes a code block's lines as they are, and a heading
 * there says it took the block for closed; a single "#" may be a comment of a shell or Python listing).
 */
export function balancedFences(markdown: string, open: boolean): { markdown: string; open: boolean } {
  const read = fencesOf(markdown, open);
  let out = read.headingCloses ? "\n```" : "";
  let at = 0;
  for (const f of read.fences) {
    out += markdown.slice(at, f.start);
    at = f.end;
    if (f.does === "close") out += "```";
    else if (f.does === "open") out += markdown.slice(f.start, f.end);
  }
  return { markdown: out + markdown.slice(at), open: read.open };
}

/** A fence of a line's Markdown: its characters `[start, end)` (its leading newline left out) and what it does. */
export interface Fence {
  start: number;
  end: number;
  /** "stray": a closing fence where no block is open, which opens none */
  does: "open" | "close" | "stray";
}

/**
 * The fences of a line's Markdown as balancedFences reads them, where `open` says whether a block is open as the line
 * begins: whether a heading opening the line closes that block first, each fence, and whether a block is open after
 * the line.
 */
export function fencesOf(markdown: string, open: boolean): { headingCloses: boolean; fences: Fence[]; open: boolean } {
  const headingCloses = open && /^\n\n#{2,6} \S/.test(markdown);
  if (headingCloses) open = false;
  const fences: Fence[] = [];
  for (const m of markdown.matchAll(ANY_FENCE)) {
    const start = m.index! + m[1]!.length;
    CLOSING_FENCE.lastIndex = m.index!;
    const closing = CLOSING_FENCE.test(markdown);
    const does = open ? "close" : closing ? "stray" : "open";
    fences.push({ start, end: m.index! + m[0].length, does });
    open = does === "open";
  }
  return { headingCloses, fences, open };
}

interface Piece {
  start: number;
  end: number;
  grid?: TableGrid;
}

function union(boxes: readonly Extent[]): [number, number, number, number] | null {
  if (!boxes.length) return null;
  return [
    Math.floor(Math.min(...boxes.map((b) => b.xMin))),
    Math.floor(Math.min(...boxes.map((b) => b.yMin))),
    Math.ceil(Math.max(...boxes.map((b) => b.xMax))),
    Math.ceil(Math.max(...boxes.map((b) => b.yMax))),
  ];
}

function pixelBox(b: Extent): [number, number, number, number] {
  return [Math.floor(b.xMin), Math.floor(b.yMin), Math.ceil(b.xMax), Math.ceil(b.yMax)];
}

/** A line this many times as tall as the next one is a headline over it: the next line goes on with no paragraph
 * of the headline's (a first column's first line, which the decoder began as a heading in lower case: "A path by the
 * river" over "### the council voted", read "A path by the river the council voted"). */
const HEADLINE = 1.6;

/** Words a heading has at most when it ends like a sentence ("Example:", "Proof.") or at all. */
const HEADING_WORDS = 12;
const HEADING_WORDS_MAX = 20;

/**
 * What the decoder wrote as a heading that is prose: a line going on from the one before (opening in lower case:
 * "## to the reader."), a sentence too long for a heading ("## For people familiar with maths, this other example
 * calculates the first lines of Pascal's triangle:"), or a paragraph whose first line it took for one.
 */
function proseHeading(body: string): boolean {
  const words = body.split(/\s+/).filter(Boolean).length;
  return /^\p{Ll}/u.test(body) || (words > HEADING_WORDS && /[.,;:]$/.test(body)) || words > HEADING_WORDS_MAX;
}

/** Role, text and Markdown of a non-table block from what was written for it. */
function readBlock(markdown: string): Block {
  const written = markdown.trim();
  // a fence alone on a line of a block that is no code block (its partner went with a table or a margin line) is stray
  const text = written.startsWith("```") ? written : written.replace(/^```[^\n]*(?:\n|$)/gm, "").trim();
  const heading = HEADING.exec(text);
  if (heading) {
    const body = text.slice(heading[0].length).trim();
    if (!proseHeading(body)) return setBlockMarkdown({ type: "heading", level: heading[1]!.length, text: body, bbox: null }, text);
    return readBlock(body);
  }
  if (text.startsWith("```")) {
    const body = text.replace(/^```[^\n]*\n?/, "").replace(/\n*```\s*$/, "");
    // a fence the decoder never closed ends with its block, not with the document
    const closed = /\n```\s*$/.test(text) ? text : `${text}\n\`\`\``;
    return setBlockMarkdown({ type: "code", text: body, bbox: null }, closed);
  }
  if (text.startsWith("$$") || text.startsWith("\\[")) {
    const body = text
      .replace(/^(\$\$|\\\[)/, "")
      .replace(/(\$\$|\\\])$/, "")
      .trim();
    return setBlockMarkdown({ type: "formula", text: body, bbox: null }, text);
  }
  const list = LIST_MARKER.exec(text);
  if (list) return setBlockMarkdown({ type: "list-item", marker: list[1]!, text: text.slice(list[0].length).trim(), bbox: null }, text);
  if (CAPTION.test(text)) return setBlockMarkdown({ type: "caption", text, bbox: null }, text);
  return setBlockMarkdown({ type: "paragraph", text, bbox: null }, text);
}

export interface AssembledPage {
  blocks: Block[];
  /** the page's Markdown with default options (no margin blocks, HTML tables) */
  markdown: string;
}

/**
 * A page's blocks in reading order from its lines in reading order. Margin lines (marginRoles) become blocks of
 * their own; the rest are read as one stretch of Markdown, split into blocks at blank lines, tables (balanced,
 * with their cell grid) and list items, each block boxed by the union of the lines it holds. Headings keep their
 * level, list items their marker; a caption, a footnote (small lines at the foot opening with a mark) and a title
 * (the first block, near the top, set in lines half again as tall as the page's median) are told apart too.
 */
export function assemblePage(
  written: readonly PageLine[],
  pageWidth: number,
  pageHeight: number,
  rules: readonly Extent[] = [],
): AssembledPage {
  // tables the decoder began, rebuilt from where their cells sit (table-geometry.ts; a ruled table's rows from its rules)
  const lines = tablesByGeometry(written, pageWidth, rules);
  const boxes = lines.map((l) => l.box);
  const texts = lines.map((l) => plainLine(l.markdown));
  const headings = lines.map((l) => HEADING.test(l.markdown.trimStart()));
  const margins = marginRoles(boxes, texts, pageHeight, headings);
  // a line that carries a table's tags is the table's (its header row at the top of a table's image), no margin's
  for (const i of [...margins.keys()]) if (lines[i]!.markdown.search(TABLE_TAG) >= 0) margins.delete(i);
  const h = median(boxes.map(height));
  const goesOn = spacedContinuations(boxes, lines, texts, margins, h);
  // the flow: every other line's Markdown in order, with where each line's text lies in it
  let flow = "";
  let fenced = false;
  const ranges: ([number, number] | undefined)[] = [];
  lines.forEach((line0, i) => {
    // (a line the decoder began as a heading in lower case goes on with the paragraph before: proseHeading; but not
    // with a headline over it, set HEADLINE times its size or more, whose first column's first line it is)
    // (inside a code block, "\n\n# then install" is a listing's comment after a blank line)
    const under = i > 0 && height(boxes[i - 1]!) >= HEADLINE * height(boxes[i]!);
    const line = fenced
      ? { ...line0 }
      : goesOn.has(i)
        ? { ...line0, markdown: line0.markdown.replace(/^\n\n/, " ") }
        : { ...line0, markdown: line0.markdown.replace(/^\n\n#{1,6} (?=\p{Ll})/u, under ? "\n\n" : " ") };
    if (margins.has(i)) {
      // a header's or footer's text leaves the flow, but not the fence its separator closes ("\n```\n\n## 2": the
      // decoder closes a code block as the page number's line begins)
      const closing = /^\n```(?=\n|$)/.exec(line.markdown);
      if (closing && flow && fenced) {
        flow += closing[0];
        fenced = false;
      }
      return;
    }
    const fences = balancedFences(line.markdown, fenced);
    line.markdown = fences.markdown;
    fenced = fences.open;
    const piece = flow ? line.markdown : line.markdown.replace(/^\s+/, "");
    ranges[i] = [flow.length, flow.length + piece.length];
    flow += piece;
  });
  const pieces: Piece[] = [];
  for (const p of splitTables(flow)) {
    if (p.kind === "table") {
      const grid = tableGrid(p.rows);
      if (grid.cells.length) pieces.push({ start: p.start, end: p.end, grid });
    } else pieces.push(...textBlocks(flow.slice(p.start, p.end), p.start).map(([start, end]) => ({ start, end })));
  }
  const linesIn = (start: number, end: number) =>
    lines
      .map((_, i) => i)
      .filter((i) => {
        const r = ranges[i];
        if (!r) return false;
        const a = Math.max(r[0], start),
          b = Math.min(r[1], end);
        return a < b && flow.slice(a, b).replace(TABLE_TAG, "").trim().length > 0;
      });
  const entries: { first: number; block: Block }[] = [];
  for (const p of pieces) {
    let block: Block;
    const fields = p.grid && formFields(p.grid);
    // (a bulleted list written as a table: an item per row, told like fields)
    const items = !fields && p.grid ? bulletItems(p.grid) : undefined;
    if (fields || items) {
      // a form's fields: a paragraph per field (a list's items: an item each), boxed by the lines whose text it holds
      const split = (fields ?? items)!;
      const members = linesIn(p.start, p.end);
      const owners = members.map((i) => {
        const t = texts[i]!;
        const k = split.findIndex((f) => t && f.includes(t));
        return k >= 0 ? k : split.findIndex((f) => t.includes(f));
      });
      let at = members[0] ?? Infinity;
      split.forEach((text, k) => {
        // (a field that opens like Markdown, "- IPCL", "# REPS: 5", stays text)
        const block = items
          ? setBlockMarkdown({ type: "list-item", marker: "-", text, bbox: null }, `- ${text}`)
          : setBlockMarkdown({ type: "paragraph", text, bbox: null }, text.replace(/^([-*+#>]|\d+[.)])(?=\s)/, "\\$1"));
        const mine = members.filter((_, m) => owners[m] === k);
        block.bbox = union(mine.map((i) => boxes[i]!));
        block.lines = mine.map((i): BlockLine => ({ text: texts[i]!, bbox: pixelBox(boxes[i]!) }));
        // (in the table's row order: a field takes its first line's place, never before the field above)
        at = Math.max(at, mine[0] ?? at);
        entries.push({ first: at + (k + 1) / (split.length + 2), block });
      });
      continue;
    }
    if (p.grid) {
      if (p.grid.rows === 1 && p.grid.cols === 1) block = readBlock(p.grid.cells[0]!.text);
      else {
        block = { type: "table", text: writeTable(p.grid), bbox: null, table: p.grid };
      }
    } else {
      const written = flow.slice(p.start, p.end).replace(TABLE_TAG, "");
      // (a fence alone, with nothing after it, opens no code block)
      if (!written.trim() || /^```[^\n]*$/.test(written.trim())) continue;
      block = readBlock(written);
    }
    const members = linesIn(p.start, p.end);
    block.bbox = union(members.map((i) => boxes[i]!));
    block.lines = members.map((i): BlockLine => ({ text: texts[i]!, bbox: pixelBox(boxes[i]!) }));
    entries.push({ first: members[0] ?? Infinity, block });
  }
  for (const [i, role] of margins) {
    const block = setBlockMarkdown(
      { type: role, text: texts[i]!, bbox: pixelBox(boxes[i]!), lines: [{ text: texts[i]!, bbox: pixelBox(boxes[i]!) }] },
      texts[i]!,
    );
    entries.push({ first: i, block });
  }
  entries.sort((a, b) => a.first - b.first);
  const blocks = entries.map((e) => e.block);
  tellRoles(blocks, h, pageHeight);
  return { blocks, markdown: pageMarkdown(blocks) };
}

/** A page set with this much leading (line pitch over line height) or more is double- or one-and-a-half-spaced. */
const SPACED_PITCH = 1.3;
/** A first word is taken this much wider than its characters' share of its line (spacedContinuations). */
const ROOM_SLACK = 1.2;

/**
 * Lines of a double-spaced page that the decoder began as new paragraphs ("\n\n") although they go on with the one
 * before: the decoder learned paragraphs from single-spaced pages, where a line's distance from the one above tells
 * a paragraph break. Here every line is that far apart, so the geometry decides: this line follows the one before
 * at the page's pitch, starts no further right than it (a new paragraph is indented), and its first word would not
 * have fitted in the room the line before leaves at its column's right edge (so that line was broken, not ended:
 * justified or ragged right alike).
 */
function spacedContinuations(
  boxes: readonly Extent[],
  lines: readonly PageLine[],
  texts: readonly string[],
  margins: Map<number, MarginRole>,
  h: number,
): Set<number> {
  const out = new Set<number>();
  const body = boxes.map((_, i) => i).filter((i) => !margins.has(i));
  const pitch = linePitch(body.map((i) => boxes[i]!));
  if (!(h > 0) || !(pitch >= SPACED_PITCH * h)) return out;
  // the right edge of the column a line lies in: the furthest any line sharing most of its width reaches
  const columnRight = (b: Extent) =>
    Math.max(
      ...body
        .map((j) => boxes[j]!)
        .filter((o) => Math.min(o.xMax, b.xMax) - Math.max(o.xMin, b.xMin) > 0.5 * Math.min(o.xMax - o.xMin, b.xMax - b.xMin))
        .map((o) => o.xMax),
    );
  const plain = (markdown: string) => /^\n\n(?![#>|<$`\s]|[-*+•]\s|\(?\d{1,4}[.)]\s)\S/.test(markdown);
  for (let k = 1; k < body.length; k++) {
    const [p, i] = [body[k - 1]!, body[k]!];
    const [a, b] = [boxes[p]!, boxes[i]!];
    if (!plain(lines[i]!.markdown) || /^\s*(?:#|```|<|\$\$)/.test(lines[p]!.markdown)) continue;
    const step = centreY(b) - centreY(a);
    if (Math.abs(step - pitch) > 0.15 * pitch) continue;
    if (b.xMin > a.xMin + 0.5 * h || a.xMin - b.xMin > 6 * h) continue;
    // the first word and a space, at this line's width per character
    const text = texts[i]!;
    const word = text.split(" ")[0]!.length + 1;
    // (a tolerance of ROOM_SLACK: the width is the line's mean per character, and "elementum" is wider than most)
    if (columnRight(a) - a.xMax >= (ROOM_SLACK * (b.xMax - b.xMin) * word) / Math.max(1, text.length)) continue;
    out.add(i);
  }
  return out;
}

/** Title, footnote: roles the text alone does not give, from the sizes and places of the block's lines. */
function tellRoles(blocks: Block[], lineHeight: number, pageHeight: number): void {
  const body = blocks.filter((b) => !MARGIN_ROLES.has(b.type));
  const tall = (b: Block) => median((b.lines ?? []).map((l) => l.bbox[3] - l.bbox[1]));
  const first = body[0];
  if (
    first &&
    first.bbox &&
    (first.type === "heading" || first.type === "paragraph") &&
    (first.lines?.length ?? 0) <= 3 &&
    first.bbox[1] < pageHeight / 3 &&
    tall(first) >= 1.5 * lineHeight &&
    body.length >= 2
  ) {
    first.type = "title";
    first.level = 1;
  }
  for (const b of body) {
    // (the decoder writes a short footnote as a heading now and then: at the foot, in small type, it is none)
    if ((b.type !== "paragraph" && b.type !== "heading") || !b.bbox || !b.lines?.length) continue;
    // (a raised mark touching a sentence, "5There is an exception, see page 17.", makes its line as tall as the body's)
    const marked = b.bbox[1] > 0.75 * pageHeight && MARK_TOUCHING.test(b.text) && /[.!?]$/.test(b.text);
    if (b.bbox[1] > (2 / 3) * pageHeight && (marked || (tall(b) <= 0.85 * lineHeight && FOOTNOTE.test(b.text)))) {
      if (b.type === "heading") {
        delete b.level;
        setBlockMarkdown(b, b.text);
      }
      b.type = "footnote";
      // a raised mark set close to its text reads without the space: "5There is an exception" is "5 There …"
      if (MARK_TOUCHING.test(b.text)) {
        const markdown = BLOCK_MARKDOWN.get(b);
        b.text = b.text.replace(MARK_TOUCHING, "$1 ");
        if (markdown !== undefined) setBlockMarkdown(b, markdown.replace(MARK_TOUCHING, "$1 "));
      }
    }
  }
}
