// Grounded model output (<|ref|>label<|/ref|><|det|>[[x0,y0,x1,y1]]<|/det|> then content) → blocks, clean Markdown, figure regions.
import type { Block } from "./schema.js";

/** DeepSeek-OCR writes coordinates on a 0–999 grid over the original page. */
export const GROUNDING_GRID = 999;

/** Literal text DeepSeek-OCR-family models write between pages of one multi-page pass. */
export const PAGE_SEPARATOR = "<PAGE>";

/**
 * A grounded block's tag, in either form the family writes: `<|ref|>label<|/ref|><|det|>[[…]]<|/det|>`
 * (DeepSeek-OCR) or `<|det|>label [[…]]<|/det|>` (Unlimited-OCR's second form). Groups: label and boxes of the
 * first form, then of the second.
 */
const REF = /<\|ref\|>([\s\S]*?)<\|\/ref\|>\s*<\|det\|>([\s\S]*?)<\|\/det\|>|<\|det\|>([^<[]*?)\s*(\[[\s\S]*?)<\|\/det\|>/g;
/** Control tokens that may leak into decoded text and never belong in Markdown. */
const STRAY_TOKENS = /<\|(?:grounding|ref|\/ref|det|\/det)\|>|<｜end▁of▁sentence｜>|<｜begin▁of▁sentence｜>/g;

/** Labels whose region is a picture: cropped to a file and referenced from the Markdown. */
export const FIGURE_LABELS: ReadonlySet<string> = new Set(["image", "figure"]);

/** Maps DeepSeek-OCR labels to our block types; unknown labels pass through as they are. */
const LABEL_TYPES: Record<string, string> = {
  title: "heading",
  sub_title: "heading",
  text: "paragraph",
  table: "table",
  table_caption: "caption",
  image: "figure",
  image_caption: "caption",
  figure: "figure",
  equation: "formula",
  formula: "formula",
  list: "list-item",
  code: "code",
};

export type PixelBox = [number, number, number, number];

/** A picture region to crop from the page and save where `path` says (relative to the Markdown file). */
export interface FigureRegion {
  /** 1-based figure number on the page */
  index: number;
  /** index in `blocks` */
  block: number;
  bbox: PixelBox;
  path: string;
}

export interface GroundedPage {
  markdown: string;
  blocks: Block[];
  figures: FigureRegion[];
  /** every box of every block (a block may carry several), in page pixels */
  boxes: PixelBox[][];
  warnings: string[];
}

export interface GroundingOptions {
  /** Where figure n (1-based) of this page will be written; without it figures get no image link. */
  figurePath?: (figureIndex: number) => string;
}

function parseBoxes(det: string): [number, number, number, number][] | undefined {
  try {
    const value = JSON.parse(det.trim()) as unknown;
    if (!Array.isArray(value)) return undefined;
    const boxes = (Array.isArray(value[0]) ? value : [value]) as unknown[];
    const ok = boxes.filter(
      (b): b is [number, number, number, number] =>
        Array.isArray(b) && b.length === 4 && b.every((n) => typeof n === "number" && Number.isFinite(n)),
    );
    return ok.length === boxes.length && ok.length > 0 ? ok : undefined;
  } catch {
    return undefined;
  }
}

/** Grid coordinates → page pixels, truncating like the reference's int(x / 999 * width). */
function toPixels(box: [number, number, number, number], width: number, height: number): PixelBox {
  const grid = (v: number) => Math.min(GROUNDING_GRID, Math.max(0, v));
  const x = (v: number) => Math.trunc((grid(v) / GROUNDING_GRID) * width);
  const y = (v: number) => Math.trunc((grid(v) / GROUNDING_GRID) * height);
  const [x0, y0, x1, y1] = [x(box[0]), y(box[1]), x(box[2]), y(box[3])];
  return [Math.min(x0, x1), Math.min(y0, y1), Math.max(x0, x1), Math.max(y0, y1)];
}

function union(boxes: PixelBox[]): PixelBox {
  return [
    Math.min(...boxes.map((b) => b[0])),
    Math.min(...boxes.map((b) => b[1])),
    Math.max(...boxes.map((b) => b[2])),
    Math.max(...boxes.map((b) => b[3])),
  ];
}

/**
 * Splits one page of grounded output into blocks with boxes in page pixels, and Markdown with the tags removed
 * (figure regions become image links when `figurePath` is given). HTML tables are kept as they are.
 */
export function parseGroundedPage(raw: string, pageWidth: number, pageHeight: number, options: GroundingOptions = {}): GroundedPage {
  const warnings: string[] = [];
  let text = raw;
  // a grounding tag cut off by the end of generation: no <|/det|> after the last opening tag (a <|ref|>, or a
  // <|det|>, which in the first form belongs to the <|ref|>…<|/ref|> just before it)
  let open = Math.max(text.lastIndexOf("<|ref|>"), text.lastIndexOf("<|det|>"));
  if (text.slice(0, open).trimEnd().endsWith("<|/ref|>")) open = text.lastIndexOf("<|ref|>", open);
  if (open >= 0 && !text.includes("<|/det|>", open)) {
    text = text.slice(0, open);
    warnings.push("output ends inside a grounding tag; the unfinished block was dropped");
  }
  const blocks: Block[] = [];
  const boxes: PixelBox[][] = [];
  const figures: FigureRegion[] = [];
  const pieces: string[] = [];
  const clean = (s: string) => s.replace(STRAY_TOKENS, "").trim();
  const matches = [...text.matchAll(REF)];
  const leading = clean(text.slice(0, matches[0]?.index ?? text.length));
  if (leading) {
    blocks.push({ type: matches.length ? "other" : "paragraph", text: leading, bbox: null });
    boxes.push([]);
    pieces.push(leading);
  }
  matches.forEach((match, i) => {
    const start = match.index! + match[0].length;
    const end = matches[i + 1]?.index ?? text.length;
    const content = clean(text.slice(start, end));
    const label = (match[1] ?? match[3]!).trim();
    const det = match[2] ?? match[4]!;
    const parsed = parseBoxes(det);
    if (!parsed) warnings.push(`block "${label}" has unreadable coordinates ${JSON.stringify(det.slice(0, 40))}`);
    const pixelBoxes = (parsed ?? []).map((b) => toPixels(b, pageWidth, pageHeight));
    const type = LABEL_TYPES[label] ?? label;
    const block: Block = { type, text: content, bbox: pixelBoxes.length ? union(pixelBoxes) : null };
    if (type === "heading") block.level = label === "title" ? 1 : 2;
    blocks.push(block);
    boxes.push(pixelBoxes);
    if (FIGURE_LABELS.has(label) && block.bbox && options.figurePath) {
      const index = figures.length + 1;
      const figurePath = options.figurePath(index);
      figures.push({ index, block: blocks.length - 1, bbox: block.bbox, path: figurePath });
      pieces.push(`![](${figurePath})`);
    }
    if (content) pieces.push(content);
  });
  return { markdown: pieces.join("\n\n"), blocks, figures, boxes, warnings };
}

/** Compatibility form: blocks and Markdown only. */
export function parseGroundedOutput(raw: string, pageWidth: number, pageHeight: number): { markdown: string; blocks: Block[] } {
  const { markdown, blocks } = parseGroundedPage(raw, pageWidth, pageHeight);
  return { markdown, blocks };
}

/**
 * Splits the output of a multi-page pass into pages. Unlimited-OCR writes `<PAGE>` before each page, and its
 * reference reads the pages as what follows the first marker: the blank stretch before the first marker is not
 * a page. Output whose first marker comes after text (markers between pages) splits at every marker.
 */
export function splitPages(text: string): string[] {
  const pages = text.split(PAGE_SEPARATOR).map((p) => p.replace(/^\s*\n/, ""));
  if (pages.length > 1 && !pages[0]!.trim()) pages.shift();
  return pages;
}

/**
 * A table of one row and one cell is not a table: the line-unit model sometimes opens a table on a short last
 * line (`<table><tr><td>package</td></tr></table>`); such a table becomes its cell's text.
 */
export function unwrapSingleCellTables(markdown: string): string {
  return markdown.replace(/<table><tr><td>([^<]*)<\/td><\/tr><\/table>/g, (_, cell: string) => cell.trim());
}

/**
 * Closes HTML table tags a page left open (a model that stops mid-table, or reads a table's first cell as
 * the page ends): appends the missing `</td>`, `</tr>`, `</table>` so the Markdown's HTML stays well formed.
 */
export function closeOpenTables(markdown: string): string {
  const stack: string[] = [];
  for (const m of markdown.matchAll(/<(\/?)(table|tr|td)>/g)) {
    const [, close, tag] = m;
    if (!close) stack.push(tag!);
    else {
      const at = stack.lastIndexOf(tag!);
      if (at >= 0) stack.length = at;
    }
  }
  if (!stack.length) return markdown;
  return (
    markdown.replace(/\s+$/, "") +
    stack
      .reverse()
      .map((t) => `</${t}>`)
      .join("")
  );
}
