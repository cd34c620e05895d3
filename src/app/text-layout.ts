// Layout from a PDF text layer: runs → lines → blocks in reading order (XY-cut), headings by font size.
import type { PageText, TextRun } from "../input/index.js";
import { escapeMarkdownInline, escapeMarkdownLineStart } from "../output/markdown.js";
import type { Block } from "../output/schema.js";

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface Line extends Box {
  text: string;
  fontSize: number;
  monospace: boolean;
}

interface LineBlock extends Box {
  lines: Line[];
  fontSize: number;
}

/** Share of the em square above the baseline; pdfjs' per-font ascent is unreliable for Type 3 fonts. */
const ASCENT = 0.8;
/** A horizontal gap wider than this many ems splits a line into separate segments (table cells, columns). */
const COLUMN_GAP = 8;
const DESCENT = 0.2;

function runBox(run: TextRun): Box {
  return {
    x0: run.x,
    x1: run.x + Math.max(run.width, 0),
    y0: run.baseline - ASCENT * run.fontSize,
    y1: run.baseline + DESCENT * run.fontSize,
  };
}

function isMonospace(run: TextRun): boolean {
  return /mono|courier|typewriter|\btt\b|cmtt|code/i.test(run.fontFamily);
}

/**
 * Groups runs into lines. Runs arrive in content-stream order; a run joins the current line when
 * it overlaps it vertically by at least half the smaller height (so sub/superscripts stay in their
 * line), otherwise it starts a new one. Spaces are inserted where the gap between runs is wider
 * than a fraction of the font size and the text does not already carry one.
 */
export function buildLines(runs: readonly TextRun[]): Line[] {
  const lines: Line[] = [];
  let current: (Line & { runs: TextRun[] }) | undefined;
  const flush = () => {
    if (!current) return;
    const text = current.text.replace(/\s+/g, " ").trim();
    if (text) {
      const mono = current.runs.filter(isMonospace).reduce((n, r) => n + r.text.length, 0);
      const total = current.runs.reduce((n, r) => n + r.text.length, 0);
      lines.push({ ...boxOf(current), text, fontSize: current.fontSize, monospace: total > 0 && mono / total > 0.8 });
    }
    current = undefined;
  };
  for (const run of runs) {
    if (run.fontSize <= 0 || run.direction === "ttb") continue;
    if (!run.text) {
      if (run.endOfLine && current) current.text += " ";
      continue;
    }
    const box = runBox(run);
    const blank = run.text.trim() === "";
    if (current) {
      const overlap = Math.min(current.y1, box.y1) - Math.max(current.y0, box.y0);
      const smaller = Math.min(current.y1 - current.y0, box.y1 - box.y0);
      const gapX = box.x0 - current.x1;
      // Same line only if it overlaps vertically and does not jump back left (a new line or column).
      const sameLine = overlap >= 0.5 * smaller && gapX > -1.0 * run.fontSize && gapX < COLUMN_GAP * run.fontSize;
      if (!sameLine && !blank) flush();
    }
    if (blank) {
      if (current) current.text += " ";
      continue;
    }
    if (!current) {
      current = { ...box, text: run.text, fontSize: run.fontSize, monospace: false, runs: [run] };
    } else {
      const gap = box.x0 - current.x1;
      const needsSpace = gap > 0.15 * Math.min(run.fontSize, current.fontSize) && !/\s$/.test(current.text) && !/^\s/.test(run.text);
      current.text += (needsSpace ? " " : "") + run.text;
      current.x0 = Math.min(current.x0, box.x0);
      current.x1 = Math.max(current.x1, box.x1);
      // The line's size is its main text's size, not a superscript's.
      if (run.text.length >= 2 || current.runs.length === 0) current.fontSize = Math.max(current.fontSize, run.fontSize);
      current.y0 = Math.min(current.y0, box.y0);
      current.y1 = Math.max(current.y1, box.y1);
      current.runs.push(run);
    }
    if (run.endOfLine) current.text += " ";
  }
  flush();
  return lines;
}

function boxOf(b: Box): Box {
  return { x0: b.x0, y0: b.y0, x1: b.x1, y1: b.y1 };
}

function union(items: readonly Box[]): Box {
  return {
    x0: Math.min(...items.map((b) => b.x0)),
    y0: Math.min(...items.map((b) => b.y0)),
    x1: Math.max(...items.map((b) => b.x1)),
    y1: Math.max(...items.map((b) => b.y1)),
  };
}

/** Largest empty band along one axis: returns the cut position and gap width, or undefined. */
function widestGap(items: readonly Box[], axis: "x" | "y"): { at: number; gap: number } | undefined {
  const spans = items
    .map((b) => (axis === "x" ? [b.x0, b.x1] : [b.y0, b.y1]) as [number, number])
    .sort((a, b) => a[0] - b[0]);
  let best: { at: number; gap: number } | undefined;
  let reach = spans[0]![1];
  for (let i = 1; i < spans.length; i++) {
    const [start, end] = spans[i]!;
    if (start > reach && (!best || start - reach > best.gap)) best = { at: (start + reach) / 2, gap: start - reach };
    reach = Math.max(reach, end);
  }
  return best;
}

/**
 * Reading order by recursive XY-cut: split the region at its widest empty band, top part before
 * bottom, left before right. A vertical band (column gutter) must be at least a font size wide,
 * so word gaps in a table row do not split it into columns; horizontal bands win ties.
 */
export function readingOrder(lines: readonly Line[], bodyFontSize: number): Line[] {
  if (lines.length <= 1) return [...lines];
  const horizontal = widestGap(lines, "y");
  const vertical = widestGap(lines, "x");
  const minGutter = 1.0 * bodyFontSize;
  const useVertical = vertical && vertical.gap >= minGutter && (!horizontal || vertical.gap > horizontal.gap);
  if (useVertical) {
    const left = lines.filter((l) => (l.x0 + l.x1) / 2 < vertical.at);
    const right = lines.filter((l) => (l.x0 + l.x1) / 2 >= vertical.at);
    return [...readingOrder(left, bodyFontSize), ...readingOrder(right, bodyFontSize)];
  }
  if (horizontal) {
    const top = lines.filter((l) => (l.y0 + l.y1) / 2 < horizontal.at);
    const bottom = lines.filter((l) => (l.y0 + l.y1) / 2 >= horizontal.at);
    return [...readingOrder(top, bodyFontSize), ...readingOrder(bottom, bodyFontSize)];
  }
  // Lines overlap on both axes (e.g. overprinted text): keep top-to-bottom, left-to-right.
  return [...lines].sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
}

/** The most common font size weighted by characters: the body text size. */
export function bodyFontSize(lines: readonly Line[]): number {
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

/**
 * Consecutive lines (in reading order) form one block while the vertical gap stays under about
 * half a line, the font size stays the same, and the lines share horizontal extent.
 */
export function buildBlocks(ordered: readonly Line[]): LineBlock[] {
  const blocks: LineBlock[] = [];
  for (const line of ordered) {
    const last = blocks[blocks.length - 1];
    const prev = last?.lines[last.lines.length - 1];
    if (last && prev) {
      const gap = line.y0 - prev.y1;
      const sameSize = Math.abs(line.fontSize - last.fontSize) <= 0.1 * last.fontSize;
      const overlapsX = Math.min(line.x1, last.x1) - Math.max(line.x0, last.x0) > 0;
      const sameKind = line.monospace === prev.monospace;
      if (gap >= -0.3 * line.fontSize && gap < 0.5 * line.fontSize && sameSize && overlapsX && sameKind) {
        last.lines.push(line);
        Object.assign(last, union([last, line]));
        continue;
      }
    }
    blocks.push({ ...boxOf(line), lines: [line], fontSize: line.fontSize });
  }
  return blocks;
}

const BULLET = /^([•◦▪‣∙·\-–—*]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+/;

export interface PageLayout {
  markdown: string;
  /** Block boxes in PDF points (top-left origin); the caller scales them to pixels. */
  blocks: (Block & { bboxPoints: Box })[];
}

/**
 * Lays out one page. `headingSizes` are the document's heading font sizes, largest first
 * (level 1 = largest); sizes not in it are body text.
 */
export function layoutPage(text: PageText, headingSizes?: readonly number[]): PageLayout {
  const lines = buildLines(text.runs);
  if (lines.length === 0) return { markdown: "", blocks: [] };
  const body = bodyFontSize(lines);
  const ordered = readingOrder(lines, body);
  const levels = headingSizes ?? headingLevels([{ lines, body }]);
  const blocks: PageLayout["blocks"] = [];
  const parts: string[] = [];
  for (const block of buildBlocks(ordered)) {
    const plain = block.lines.map((l) => l.text).join("\n");
    const chars = plain.length;
    const level = levels.findIndex((s) => Math.abs(s - block.fontSize) < 0.25) + 1;
    const box = boxOf(block);
    if (level > 0 && block.lines.length <= 3 && chars <= 200) {
      const heading = block.lines.map((l) => l.text).join(" ");
      blocks.push({ type: "heading", level, text: heading, bbox: null, bboxPoints: box });
      parts.push(`${"#".repeat(Math.min(level, 6))} ${escapeMarkdownInline(heading)}`);
    } else if (block.lines.every((l) => l.monospace)) {
      // Indentation in code matters: recover it from x offsets in character widths (about 0.525 em in monospace).
      const charWidth = 0.525 * block.fontSize;
      const code = block.lines.map((l) => " ".repeat(Math.max(0, Math.round((l.x0 - block.x0) / charWidth))) + l.text).join("\n");
      blocks.push({ type: "code", text: plain, bbox: null, bboxPoints: box });
      parts.push("```\n" + code.replace(/```/g, "`\u200b``") + "\n```");
    } else if (BULLET.test(block.lines[0]!.text)) {
      blocks.push({ type: "list-item", text: plain, bbox: null, bboxPoints: box });
      const item = block.lines.map((l) => l.text).join(" ").replace(BULLET, "");
      const marker = /^\(?\d/.test(block.lines[0]!.text) ? "1." : "-";
      parts.push(`${marker} ${escapeMarkdownInline(item)}`);
    } else {
      blocks.push({ type: "paragraph", text: plain, bbox: null, bboxPoints: box });
      parts.push(escapeMarkdownLineStart(escapeMarkdownInline(joinLines(block.lines.map((l) => l.text)))));
    }
  }
  return { markdown: parts.join("\n\n"), blocks };
}

/** Joins a paragraph's lines, undoing end-of-line hyphenation when a lowercase word follows. */
function joinLines(lines: string[]): string {
  let out = "";
  for (const line of lines) {
    if (!out) out = line;
    else if (/[a-zà-ÿ]-$/.test(out) && /^[a-zà-ÿ]/.test(line)) out = out.slice(0, -1) + line;
    else out += " " + line;
  }
  return out;
}

/**
 * Heading font sizes for a set of pages, largest first. A size counts as a heading size when it is
 * clearly larger than the body (10 %+) and carries little text overall (headings are short).
 */
export function headingLevels(pages: readonly { lines: readonly Line[]; body: number }[]): number[] {
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
export function pageLineStats(text: PageText): { lines: Line[]; body: number } {
  const lines = buildLines(text.runs);
  return { lines, body: lines.length ? bodyFontSize(lines) : 0 };
}
