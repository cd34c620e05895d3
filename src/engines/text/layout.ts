// Layout from a PDF text layer: blocks in reading order (text-blocks.ts) → headings, lists, code, paragraphs.
import type { PageText } from "../../input/index.js";
import { escapeMarkdownInline, escapeMarkdownLineStart } from "../../output/markdown.js";
import type { Block } from "../../output/schema.js";
import { setBlockMarkdown } from "../../layout/page.js";
import { pageBlocks, type TextBlock, type TextLine } from "./blocks.js";

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A line's size and text, for judging body and heading sizes. */
export interface LineStat {
  text: string;
  fontSize: number;
}

/** A line's font size: that of the word carrying most of its characters (not a superscript's). */
function lineFontSize(line: TextLine): number {
  let best = line.words[0]!;
  for (const w of line.words) if (w.text.length > best.text.length) best = w;
  return best.fontSize;
}

/** The most common font size weighted by characters: the body text size. */
export function bodyFontSize(lines: readonly LineStat[]): number {
  const weight = new Map<number, number>();
  for (const line of lines) {
    const size = Math.round(line.fontSize * 2) / 2;
    weight.set(size, (weight.get(size) ?? 0) + line.text.length);
  }
  let best = 10;
  let bestWeight = -1;
  for (const [size, w] of weight) if (w > bestWeight) [best, bestWeight] = [size, w];
  return best;
}

const BULLET = /^([•◦▪‣∙·\-–—*]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+/;

export interface PageLayout {
  markdown: string;
  /** Block boxes (and their lines' boxes) in PDF points (top-left origin); the caller scales them to pixels. */
  blocks: (Block & { bboxPoints: Box; linePoints: { text: string; box: Box }[] })[];
}

/**
 * Lays out one page. `headingSizes` are the document's heading font sizes, largest first
 * (level 1 = largest); sizes not in it are body text.
 */
export function layoutPage(text: PageText, headingSizes?: readonly number[]): PageLayout {
  return layoutBlocks(pageBlocks(text.runs), headingSizes);
}

/** layoutPage for blocks already found (the text engine finds them once per page). Each block's Markdown is kept with it (setBlockMarkdown). */
export function layoutBlocks(textBlocks: readonly TextBlock[], headingSizes?: readonly number[]): PageLayout {
  if (textBlocks.length === 0) return { markdown: "", blocks: [] };
  const levels = headingSizes ?? headingLevels([blockStats(textBlocks)]);
  const blocks: PageLayout["blocks"] = [];
  const parts: string[] = [];
  const add = (block: Block, box: Box, lines: readonly TextLine[], markdown: string) => {
    const linePoints = lines.map((l) => ({ text: l.text, box: { x0: l.xMin, y0: l.yMin, x1: l.xMax, y1: l.yMax } }));
    blocks.push(Object.assign(setBlockMarkdown(block, markdown), { bboxPoints: box, linePoints }));
    parts.push(markdown);
  };
  for (const block of textBlocks.flatMap(splitListItems)) {
    const lines = block.lines;
    const plain = blockText(lines.map((l) => l.text));
    const level = levels.findIndex((s) => Math.abs(s - Math.round(block.fontSize * 2) / 2) < 0.25) + 1;
    const box: Box = { x0: block.xMin, y0: block.yMin, x1: block.xMax, y1: block.yMax };
    const bullet = BULLET.exec(lines[0]!.text);
    if (level > 0 && lines.length <= 3 && plain.length <= 200) {
      const heading = lines.map((l) => l.text).join(" ");
      add(
        { type: "heading", level, text: heading, bbox: null },
        box,
        lines,
        `${"#".repeat(Math.min(level, 6))} ${escapeMarkdownInline(heading)}`,
      );
    } else if (lines.every((l) => l.words.every((w) => w.monospace))) {
      // Indentation in code matters: recover it from x offsets in character widths (about 0.525 em in monospace).
      const charWidth = 0.525 * block.fontSize;
      const code = lines.map((l) => " ".repeat(Math.max(0, Math.round((l.xMin - block.xMin) / charWidth))) + l.text).join("\n");
      add(
        { type: "code", text: lines.map((l) => l.text).join("\n"), bbox: null },
        box,
        lines,
        "```\n" + code.replace(/```/g, "`\u200b``") + "\n```",
      );
    } else if (bullet) {
      const item = joinLines(lines.map((l) => l.text)).replace(BULLET, "");
      // the item's own number is kept (159. stays 159.); bullets of any shape become "-"
      const number = /^\(?(\d{1,3})[.)]/.exec(bullet[1]!);
      const marker = number ? `${Number(number[1])}.` : "-";
      add(
        { type: "list-item", marker: bullet[1]!, text: plain.replace(BULLET, ""), bbox: null },
        box,
        lines,
        `${marker} ${escapeMarkdownInline(item)}`,
      );
    } else {
      add(
        { type: "paragraph", text: plain, bbox: null },
        box,
        lines,
        escapeMarkdownLineStart(escapeMarkdownInline(joinLines(lines.map((l) => l.text)))),
      );
    }
  }
  return { markdown: parts.join("\n\n"), blocks };
}

/** A block whose lines start with bullets or numbers holds several list items: one block each. */
function splitListItems(block: TextBlock): TextBlock[] {
  const starts = block.lines.map((l, i) => (i === 0 || BULLET.test(l.text) ? i : -1)).filter((i) => i >= 0);
  if (starts.length <= 1 || !BULLET.test(block.lines[0]!.text)) return [block];
  return starts.map((start, k) => {
    const lines = block.lines.slice(start, starts[k + 1] ?? block.lines.length);
    return {
      lines,
      fontSize: block.fontSize,
      xMin: Math.min(...lines.map((l) => l.xMin)),
      xMax: Math.max(...lines.map((l) => l.xMax)),
      yMin: Math.min(...lines.map((l) => l.yMin)),
      yMax: Math.max(...lines.map((l) => l.yMax)),
    };
  });
}

/** Lines (text and size) and body size of a page's blocks, for headingLevels over a document. */
export function blockStats(blocks: readonly TextBlock[]): { lines: LineStat[]; body: number } {
  const lines = blocks.flatMap((b) => b.lines.map((l) => ({ text: l.text, fontSize: lineFontSize(l) })));
  return { lines, body: lines.length ? bodyFontSize(lines) : 0 };
}

/** Joins a paragraph's lines into one Markdown line, undoing end-of-line hyphenation. */
function joinLines(lines: string[]): string {
  return blockText(lines).replace(/\n/g, " ");
}

/**
 * A block's text, one line per line, except that a line ending in a hyphen after a letter is joined
 * to the next without the hyphen: typesetting hyphenation is not part of the words (pdftotext does
 * the same).
 */
export function blockText(lines: readonly string[]): string {
  let out = "";
  for (const line of lines) {
    if (!out) out = line;
    else if (/\p{L}-$/u.test(out)) out = out.slice(0, -1) + line;
    else out += "\n" + line;
  }
  return out;
}

/**
 * Heading font sizes for a set of pages, largest first. A size counts as a heading size when it is
 * clearly larger than the body (10 %+) and carries little text overall (headings are short).
 */
export function headingLevels(pages: readonly { lines: readonly LineStat[]; body: number }[]): number[] {
  const chars = new Map<number, number>();
  let total = 0;
  let body = 0;
  const bodyVotes = new Map<number, number>();
  for (const page of pages) {
    bodyVotes.set(page.body, (bodyVotes.get(page.body) ?? 0) + 1);
    for (const line of page.lines) {
      const size = Math.round(line.fontSize * 2) / 2;
      chars.set(size, (chars.get(size) ?? 0) + line.text.length);
      total += line.text.length;
    }
  }
  let votes = -1;
  for (const [size, v] of bodyVotes) if (v > votes) [body, votes] = [size, v];
  return [...chars.entries()]
    .filter(([size, c]) => size >= 1.1 * body && c <= Math.max(0.2 * total, 400))
    .map(([size]) => size)
    .sort((a, b) => b - a)
    .slice(0, 6);
}

/** Lines and body size of a page, for headingLevels over a whole document. */
export function pageLineStats(text: PageText): { lines: LineStat[]; body: number } {
  return blockStats(pageBlocks(text.runs));
}
