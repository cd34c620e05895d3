// Text-layer blocks and reading order: words grow into blocks by proximity, blocks are read as pdftotext reads them.
//
// Blocks are grown the way xpdf/poppler's text extractor (behind `pdftotext`, the usual baseline)
// grows them: from its upper-left word a block takes words on the lines just above and below that
// overlap it and share its font size, words on its own lines within a narrow gap, and a few outlying
// words at its sides. Reading order is poppler's too (text-order.ts): Breuel's topological sort.
import type { TextRun } from "../../input/index.js";
import { readingOrder, type OrderBlock } from "./order.js";

export interface Word {
  text: string;
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
  /** Baseline, down from the top of the page (points). */
  base: number;
  fontSize: number;
  monospace: boolean;
  /** The word ended at a space (or line end) in the text, rather than at a gap or baseline change. */
  spaceAfter: boolean;
}

export interface TextLine {
  words: Word[];
  text: string;
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
  base: number;
}

/** A block: its extent and the font size of its first word (what the grouping and ordering rules compare), and its lines. */
export interface TextBlock extends OrderBlock {
  lines: TextLine[];
}

/** Share of the em square above / below the baseline (pdfjs' per-font metrics are unreliable for Type 3). */
const ASCENT = 0.8;
const DESCENT = 0.2;
/** A gap wider than this (× font size) between glyph runs splits a word. */
const WORD_BREAK = 0.1;
/** Overlap deeper than this (× font size) also splits a word (overprinted or duplicated text). */
const DUPLICATE_OVERLAP = 0.2;
/** Baselines within this many points share a pool bucket when looking for a block's first word. */
const BUCKET = 4;
/** Lines above/below join a block when their baselines are within this (× font size). */
const LINE_SPACING = 1.5;
/** Words on a block's lines join it when no further than this (× font size) from its sides (poppler's minColSpacing1 default, 0.7). */
const COLUMN_SPACING_NEAR = 0.7;
/** Outlying words at a block's sides join it when nearer than this (× font size), at most three lines. */
const COLUMN_SPACING_FAR = 1.0;
/** Words within this (× font size) of a line's baseline belong to it (sub- and superscripts). */
const INTRA_LINE = 0.5;
/** Words in a line further apart than this (× the line's first font size) get a space (poppler's maxCharSpacing). */
const LINE_SPACE_GAP = 0.03;
/** In a line of single letters, a space is a gap this much wider than the narrowest, at most LETTER_SPACED_MAX em. */
const LETTER_SPACED_GAP = 1.3;
const LETTER_SPACED_MAX = 0.4;
/** Words in one line are at most this far apart (× font size); a wider gap starts a new line. */
const WORD_SPACING_MAX = 1.5;
/** Words may overlap this much (× font size) and still follow each other in a line. */
const CHAR_SPACING_MIN = -0.5;

function isMonospace(run: TextRun): boolean {
  return /mono|courier|typewriter|\btt\b|cmtt|code/i.test(run.fontFamily);
}

/**
 * Splits runs into words. pdfjs gives runs without per-glyph positions, so a glyph's advance is
 * taken as the run's width shared evenly among its characters.
 */
export function buildWords(runs: readonly TextRun[]): Word[] {
  const words: Word[] = [];
  let current: Word | undefined;
  let lastChar: { x: number; base: number; fontSize: number } | undefined;
  const end = (spaceAfter = false) => {
    if (current && current.text) words.push({ ...current, spaceAfter });
    current = undefined;
  };
  for (const run of runs) {
    if (run.fontSize <= 0 || run.direction === "ttb" || !run.text) continue;
    const chars = [...run.text];
    const advance = chars.length ? Math.max(run.width, 0) / chars.length : 0;
    const fs = run.fontSize;
    chars.forEach((char, i) => {
      const x = run.x + i * advance;
      if (/\s/.test(char)) {
        end(true);
        lastChar = undefined;
        return;
      }
      if (current && lastChar) {
        const gap = x - current.xMax;
        const sameBase = Math.abs(run.baseline - current.base) <= 0.5;
        if (!sameBase || gap > WORD_BREAK * current.fontSize || gap < -DUPLICATE_OVERLAP * current.fontSize) end();
      }
      if (!current) {
        current = {
          text: "",
          xMin: x,
          xMax: x,
          yMin: run.baseline - (run.ascent ?? ASCENT) * fs,
          yMax: run.baseline - (run.descent ?? -DESCENT) * fs,
          base: run.baseline,
          fontSize: fs,
          monospace: isMonospace(run),
          spaceAfter: false,
        };
      }
      current.text += char;
      current.xMin = Math.min(current.xMin, x);
      current.xMax = Math.max(current.xMax, x + advance);
      lastChar = { x, base: run.baseline, fontSize: fs };
      // An accent glyph inside a run (TeX draws "Nikod´" then "ym" kerned back under it) is a word of
      // its own, so attachAccents can put it on the letter it stands over.
      if (isAccentGlyph(char)) {
        const accent = current;
        const before = [...accent.text].slice(0, -1).join("");
        if (before) {
          words.push({ ...accent, text: before, xMax: x, spaceAfter: false });
          current = { ...accent, text: char, xMin: x };
        }
        end();
        lastChar = undefined;
      }
    });
    if (run.endOfLine) {
      end(true);
      lastChar = undefined;
    }
  }
  end();
  return attachAccents(words);
}

/** Spacing accents TeX and others draw as separate glyphs, and the combining marks they stand for. */
const COMBINING: Record<string, string> = {
  "\u02c6": "\u0302",
  "^": "\u0302",
  "\u02dc": "\u0303",
  "~": "\u0303",
  "\u00a8": "\u0308",
  "\u00b4": "\u0301",
  "`": "\u0300",
  "\u02d8": "\u0306",
  "\u02c7": "\u030c",
  "\u00af": "\u0304",
  "\u02c9": "\u0304",
  "\u02d9": "\u0307",
  "\u02da": "\u030a",
  "\u00b8": "\u0327",
  "\u02db": "\u0328",
  "\u02dd": "\u030b",
};

/** A spacing accent or combining mark other than ASCII ^ ~ ` (those are also plain characters of code and prose). */
function isAccentGlyph(char: string): boolean {
  return !/[\^~`]/.test(char) && combiningFor(char) !== undefined;
}

function combiningFor(text: string): string | undefined {
  if (/^[\u0300-\u036f]$/.test(text)) return text;
  return COMBINING[text];
}

/**
 * Puts accents drawn as glyphs of their own (TeX's \^o, \~u) onto the letter under them, as one
 * composed character: a one-glyph accent word whose centre lies over a letter of a word on the same
 * line (within an em vertically) becomes that letter's combining mark.
 */
function attachAccents(words: Word[]): Word[] {
  const accents = words.filter((w) => [...w.text].length === 1 && combiningFor(w.text) !== undefined);
  if (accents.length === 0) return words;
  const removed = new Set<Word>();
  for (const accent of accents) {
    const centre = (accent.xMin + accent.xMax) / 2;
    let target: Word | undefined;
    for (const w of words) {
      if (w === accent || removed.has(w) || combiningFor(w.text) !== undefined) continue;
      if (centre < w.xMin || centre > w.xMax || Math.abs(w.base - accent.base) > w.fontSize) continue;
      if (!target || Math.abs(w.base - accent.base) < Math.abs(target.base - accent.base)) target = w;
    }
    if (!target) continue;
    const chars = [...target.text];
    const width = (target.xMax - target.xMin) / chars.length;
    const index = Math.min(chars.length - 1, Math.max(0, Math.floor((centre - target.xMin) / width)));
    chars[index] = chars[index]! + combiningFor(accent.text)!;
    target.text = chars.join("").normalize("NFC");
    target.yMin = Math.min(target.yMin, accent.yMin);
    removed.add(accent);
  }
  return words.filter((w) => !removed.has(w));
}

const bucketOf = (base: number) => Math.floor(base / BUCKET);

/** The word a block (or line) starts from: the left-most among the top four baseline buckets. */
function pickStart(pool: readonly Word[]): Word {
  let top = Infinity;
  for (const w of pool) top = Math.min(top, bucketOf(w.base));
  let best: Word | undefined;
  for (const w of pool) {
    if (bucketOf(w.base) < top + 4 && (!best || w.xMin < best.xMin)) best = w;
  }
  return best!;
}

function grow(box: { xMin: number; xMax: number; yMin: number; yMax: number }, w: Word): void {
  box.xMin = Math.min(box.xMin, w.xMin);
  box.xMax = Math.max(box.xMax, w.xMax);
  box.yMin = Math.min(box.yMin, w.yMin);
  box.yMax = Math.max(box.yMax, w.yMax);
}

/** Groups a page's words into blocks (unordered). */
function groupBlocks(all: readonly Word[]): { words: Word[]; fontSize: number }[] {
  const pool = new Set(all);
  const blocks: { words: Word[]; fontSize: number }[] = [];
  while (pool.size > 0) {
    const seed = pickStart([...pool]);
    pool.delete(seed);
    const words = [seed];
    const box = { xMin: seed.xMin, xMax: seed.xMax, yMin: seed.yMin, yMax: seed.yMax };
    const fs = seed.fontSize;
    let minBase = seed.base;
    let maxBase = seed.base;
    const take = (w: Word) => {
      pool.delete(w);
      words.push(w);
      grow(box, w);
    };
    const sameSize = (w: Word, tolerance: number) => Math.abs(w.fontSize - fs) < tolerance * fs;
    for (;;) {
      let found = false;
      let newMin = minBase;
      for (const w of [...pool]) {
        if (w.base < minBase && w.base >= minBase - LINE_SPACING * fs && w.xMin < box.xMax && w.xMax > box.xMin && sameSize(w, 0.05)) {
          take(w);
          newMin = Math.min(newMin, w.base);
          found = true;
        }
      }
      minBase = newMin;
      let newMax = maxBase;
      for (const w of [...pool]) {
        if (w.base > maxBase && w.base <= maxBase + LINE_SPACING * fs && w.xMin < box.xMax && w.xMax > box.xMin && sameSize(w, 0.05)) {
          take(w);
          newMax = Math.max(newMax, w.base);
          found = true;
        }
      }
      maxBase = newMax;
      const near = COLUMN_SPACING_NEAR * fs;
      for (const w of [...pool]) {
        if (
          w.base >= minBase - INTRA_LINE * fs &&
          w.base <= maxBase + INTRA_LINE * fs &&
          w.xMin < box.xMax + near &&
          w.xMax > box.xMin - near &&
          sameSize(w, 0.6)
        ) {
          take(w);
          found = true;
        }
      }
      if (found) continue;
      // Outliers at the sides (a line number, a closing bracket): taken only when few lines have one.
      for (const side of ["left", "right"] as const) {
        const far = COLUMN_SPACING_FAR * fs;
        const byBucket = new Map<number, Word>();
        for (const w of pool) {
          if (w.base < minBase - INTRA_LINE * fs || w.base > maxBase + INTRA_LINE * fs || !sameSize(w, 0.2)) continue;
          const beside = side === "left" ? w.xMax <= box.xMin && w.xMax > box.xMin - far : w.xMin >= box.xMax && w.xMin < box.xMax + far;
          if (!beside) continue;
          const b = bucketOf(w.base);
          const prev = byBucket.get(b);
          if (!prev || w.xMin < prev.xMin) byBucket.set(b, w);
        }
        if (byBucket.size > 0 && byBucket.size <= 3) {
          for (const w of byBucket.values()) {
            take(w);
            minBase = Math.min(minBase, w.base);
            maxBase = Math.max(maxBase, w.base);
          }
          found = true;
        }
      }
      if (!found) break;
    }
    blocks.push({ words, fontSize: fs });
  }
  return blocks;
}

/**
 * A line's text, spaced as pdftotext spaces it: by geometry alone (pdfjs' own space items are guesses at
 * gaps over a tenth of an em, and miss the narrower ones TeX leaves after a sub- or superscript).
 * Words further apart than LINE_SPACE_GAP of the line's first font size get a space; a line of single
 * characters (letter-spaced text) takes its narrowest gap, widened by LETTER_SPACED_GAP and capped at
 * LETTER_SPACED_MAX em, as the threshold instead, so its letters read as one word.
 */
function lineText(words: readonly Word[]): string {
  const fs = words[0]!.fontSize;
  const gaps = words.slice(1).map((w, i) => w.xMin - words[i]!.xMax);
  const letterSpaced = words.length > 1 && words.every((w) => [...w.text].length === 1) && Math.min(...gaps) > 0;
  const space = letterSpaced ? Math.min(LETTER_SPACED_GAP * Math.min(...gaps), LETTER_SPACED_MAX * fs) : LINE_SPACE_GAP * fs;
  let text = words[0]!.text;
  for (let i = 1; i < words.length; i++) text += (gaps[i - 1]! >= space ? " " : "") + words[i]!.text;
  return text;
}

/** Orders a block's words into lines: left to right along a baseline, lines by baseline (as pdftotext), then left to right. */
function buildLinesOf(words: readonly Word[]): TextLine[] {
  const pool = new Set(words);
  const lines: TextLine[] = [];
  while (pool.size > 0) {
    const seed = pickStart([...pool]);
    pool.delete(seed);
    const line: Word[] = [seed];
    const fs = seed.fontSize;
    let last = seed;
    for (;;) {
      // As pdftotext: the left-most word of each baseline bucket in range is a candidate; the nearest
      // follows, unless one of them overlaps the last word (an accent over it, a stacked formula), which
      // ends the line there.
      const firstInBucket = new Map<number, Word>();
      for (const w of pool) {
        if (Math.abs(w.base - seed.base) > INTRA_LINE * fs) continue;
        const b = bucketOf(w.base);
        const first = firstInBucket.get(b);
        if (!first || w.xMin < first.xMin) firstInBucket.set(b, w);
      }
      let best: Word | undefined;
      let overlap = false;
      for (const w of firstInBucket.values()) {
        const delta = w.xMin - last.xMax;
        if (delta < CHAR_SPACING_MIN * fs) overlap = true;
        else if (delta < WORD_SPACING_MAX * fs && (!best || w.xMin < best.xMin)) best = w;
      }
      if (overlap || !best) break;
      pool.delete(best);
      line.push(best);
      last = best;
    }
    const box = { xMin: seed.xMin, xMax: seed.xMax, yMin: seed.yMin, yMax: seed.yMax };
    for (const w of line) grow(box, w);
    lines.push({ words: line, text: lineText(line), ...box, base: seed.base });
  }
  return lines.sort((a, b) => a.base - b.base || a.xMin - b.xMin);
}

/**
 * Blocks of a page in reading order (text-order.ts): columns read one after the other, a block above
 * another it overlaps comes first, grids of aligned blocks read row by row.
 */
export function pageBlocks(runs: readonly TextRun[]): TextBlock[] {
  const blocks = groupBlocks(buildWords(runs)).map((b) => {
    const lines = buildLinesOf(b.words);
    const box = { xMin: Infinity, xMax: -Infinity, yMin: Infinity, yMax: -Infinity };
    for (const w of b.words) grow(box, w);
    return { lines, fontSize: b.fontSize, ...box };
  });
  return readingOrder(blocks);
}
