// Faithful characters: a line-unit model's Markdown for one line, merged with the recogniser's glyph evidence.
// The small decoder writes each line's Markdown from the recogniser's slots; it adds the structure (block separators,
// heading and list markers, table tags) and the letters the recogniser's alphabet lacks (accents, Cyrillic), but it
// also invents letters the glyphs do not support ("bugundles" for "bundles", "20024" for "2002", Cyrillic letters on
// an English page). Here the decoder's characters are aligned with the recogniser's slots (edit distance) and:
//   - where a recogniser character is sure (peak >= confident) and one the decoder can write, it is written: the
//     decoder's substitutions are undone, its letters, digits and marks inserted inside a sure run are dropped,
//     and sure characters it dropped are restored (between the first and last slots aligned with its text, and
//     the rest of a number at either end);
//   - a decoder letter beyond the recogniser (é, ü, ł, ß, Cyrillic) over a recogniser letter of the same base or
//     look (e, u, l, B; Latin H for Cyrillic Н) is kept, and so is every decoder character over weak evidence;
//   - Markdown structure is never touched;
//   - letters of a script the page does not use (decided once per page from the recogniser's sure evidence,
//     pageScripts; on a page mixing Latin and Cyrillic words, per word) are never written: they become the
//     recogniser's character there, or their Latin look-alike, or nothing.
// The thresholds were chosen on synthetic training-type pages (scripts/faithful-eval.mjs tune), never on the
// evaluation pages.
import { appendFileSync } from "node:fs";
import { fencesOf } from "../../layout/page.js";
import { median } from "../../layout/xycut.js";
import { DIACRITICS, type Diacritic, markable, misreadO, splitMark, sureAt, withMark } from "../../vision/diacritics.js";
import { cyrillicLanguage, pageLanguage } from "../../vision/language.js";
import { GERMAN_MARKED } from "./german-marked.js";
import {
  commonFarWord,
  lookAlikeWord,
  nearestReading,
  nearestWord,
  ownLetterWord,
  type PageWords,
  pageForm,
  repairedWord,
  type WordList,
  wordKey,
} from "./words.js";
import { POLISH_MARKED, POLISH_STROKED } from "./polish-marked.js";

/** What the recogniser read on one line: one character of `text` per slot, each with its peak probability. */
export interface LineEvidence {
  text: string;
  peaks: ArrayLike<number>;
  /** per slot, the blank CTC steps before it (absent: unknown) */
  gaps?: ArrayLike<number>;
  /** per slot, the diacritic read on its letter (vision/diacritics.ts DIACRITICS index) and its probability; absent
   * where the page was not read for diacritics */
  diacritics?: ArrayLike<number>;
  diacriticPeaks?: ArrayLike<number>;
  /** per slot, its glyph's height over the line's x-height (NaN: not measured; vision/letter-case.ts slotHeights) */
  heights?: ArrayLike<number>;
  /** …and how far it reaches below the baseline, in x-heights */
  depths?: ArrayLike<number>;
  /** the recogniser's reading of the line before (a heading's number detected as a line of its own) */
  previous?: string;
}

export interface FaithfulOptions {
  /** a recogniser character at least this sure overrides the decoder */
  confident: number;
  /** a page uses Cyrillic when at most this share of its sure recogniser letters are Latin-only shapes (pageScripts) */
  latinShare: number;
  /** also drop punctuation (not spaces) the decoder inserted inside a sure run */
  punctuation: boolean;
  /** also drop spaces the decoder inserted between two sure characters: "letters" between any two, "marks" only
   * where one of them is a mark (the recogniser misses spaces between words, seldom beside a mark) */
  spaces: "none" | "marks" | "letters";
  /** a line the recogniser read no symbol in keeps only its structure and punctuation */
  empty: boolean;
  /** sure characters the decoder dropped are restored: letters and digits inside a word ("word"), or any character
   * between the first and last slots aligned with the decoder's text ("line"; spaces only with `spaces`) */
  restore: "word" | "line";
}

/**
 * Chosen on the real-document corpus' val split (67 non-reserved Debian and typeset pages, never bench or
 * evaluation pages: `node scripts/faithful-eval.mjs synth|tune WORK CORPUS/val`), pooled CER: the punctuation rule
 * 0.1232 -> 0.1113, restoring over the line rather than the word 0.1159 -> 0.1113, a sure threshold of 0.7 rather
 * than 0.8 0.1113 -> 0.1063 (0.5: 0.1085). Dropping spaces beside marks would gain 0.1063 -> 0.1040 but joins a list
 * number to its item ("1.first") and a table cell's text to its tag, so spaces stay the decoder's.
 */
export const FAITHFUL_DEFAULTS: FaithfulOptions = {
  confident: 0.7,
  latinShare: 0.2,
  punctuation: true,
  spaces: "none",
  empty: true,
  restore: "line",
};

export interface PageScripts {
  /** the page's text is Cyrillic: the decoder's Cyrillic letters may stay */
  cyrillic: boolean;
  /** a Latin page with Cyrillic words among its Latin ones (a Russian manual quoting English): the decoder's
   * Cyrillic letters may stay in words whose recogniser reading has no sure Latin-only letter */
  mixed?: boolean;
  /** an English page (englishPage): the decoder's accents on letters the recogniser read bare are dropped */
  english?: boolean;
  /** a page of TeX documentation (texPage): a word between brackets read unsure is a meta-variable (texAngles) */
  tex?: boolean;
  /** a Cyrillic page in Serbian (serbianWords): the decoder's н and л where the recogniser read a soft sign's b
   * are њ and љ */
  serbian?: boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// characters

const CYRILLIC = /[\u0400-\u04ff]/;
const OTHER_SCRIPT =
  /[\u0370-\u03ff\u0590-\u06ff\u0e00-\u0e7f\u1100-\u11ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|[\ud800-\udbff]/;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
/** Letters and punctuation the decoder's tokenizer has besides ASCII (models/default: Latin-1 letters, Œœ, Cyrillic, typography). */
const WRITABLE_EXTRA = /[À-ÖØ-öø-ÿŒœ–—‘’“”„…•«»°§©®±×÷µ¶·€¡¿]/;

/** Cyrillic letters and the Latin letters or digits a recogniser without Cyrillic reads for them. */
const CYRILLIC_LOOKS: Record<string, string> = {
  А: "A",
  В: "B",
  Е: "E",
  Ё: "E",
  З: "3",
  И: "N",
  Й: "N",
  К: "K",
  М: "M",
  Н: "H",
  О: "O",
  Р: "P",
  С: "C",
  Т: "T",
  У: "Y",
  Х: "X",
  Ь: "b",
  Ѕ: "S",
  І: "I",
  Ї: "I",
  Ј: "J",
  Г: "r",
  П: "n",
  Л: "n",
  Д: "A",
  Я: "R",
  Ч: "4",
  Ш: "W",
  Б: "6",
  Э: "3",
  Ж: "X",
  а: "a",
  в: "B",
  е: "e",
  ё: "e",
  з: "3",
  и: "u",
  й: "u",
  к: "k",
  м: "M",
  н: "H",
  о: "o",
  р: "p",
  с: "c",
  т: "T",
  у: "y",
  х: "x",
  ь: "b",
  ѕ: "s",
  і: "i",
  ї: "i",
  ј: "j",
  г: "r",
  п: "n",
  л: "n",
  д: "A",
  я: "R",
  ч: "4",
  ш: "w",
  б: "6",
  э: "3",
  ж: "x",
  ъ: "b",
  ы: "b",
  // Serbian: ћ and ђ read as the h they are built on, љ and њ as their soft-sign half, џ as the u it resembles
  ћ: "h",
  Ћ: "h",
  ђ: "h",
  Ђ: "T",
  љ: "b",
  Љ: "b",
  њ: "b",
  Њ: "b",
  џ: "u",
  Џ: "U",
};
/** Letters beyond ASCII without a Unicode decomposition, and the ASCII letters they look like. */
const LATIN_LOOKS: Record<string, string> = {
  ß: "B",
  ł: "l",
  Ł: "L",
  ø: "o",
  Ø: "O",
  đ: "d",
  Đ: "D",
  ı: "i",
  æ: "a",
  Æ: "A",
  œ: "o",
  Œ: "O",
  ð: "d",
  þ: "p",
  µ: "u",
};
/** Typographic punctuation and the ASCII the recogniser reads for it. */
const PUNCT_LOOKS: Record<string, string> = {
  "‘": "'",
  "’": "'",
  "‚": ",",
  "“": '"',
  "”": '"',
  "„": '"',
  "«": "<",
  "»": ">",
  "–": "-",
  "—": "-",
  "…": ".",
  "•": ".",
  "·": ".",
  "´": "'",
  "`": "'",
};
/** Letters and marks beyond the recogniser's alphabet, and what it reads for them, sure, besides their base
 * (scripts/train/recogniser-confusions.mjs, 400 synthetic lines in 12 fonts: ü as "i" 48 times of 134, ß as "f" 5
 * of 77, „ as "," 121 of 138, ” as "I" 16 of 169): the decoder's letter stands over them ("müssen", not "missen"). */
const MISREADS: Record<string, string> = { ü: "i", ß: "f", "„": ",", "”": "I" };
/** Marks of a typewriter face the recogniser reads sure as a letter: cmtt's "{" as "f" ("\Declare0ptionfdebug}"). The
 * decoder's mark stands over that letter where the decoder's brackets pair up in the line. */
const TYPEWRITER_MISREADS: Record<string, string> = { "{": "f" };
/** The letters of an o the recogniser misread (vision/diacritics.ts misreadO) may be: the decoder's there stays. */
const O_FAMILY = /^[oóöőôòõOÓÖŐÔÒÕ]$/;
/** What the decoder's text holds where it wrote part of a letter's UTF-8 bytes (a letter beyond its vocabulary: č, ű,
 * ź spelled by byte tokens, one of them missing): never written. */
const BROKEN = "\uFFFD";
/** Capitals that are their small letter set larger: the recogniser tells their case by size alone. */
const SIZE_CASED = /^[COSVWXZ]$/;
/** Marked letters of a typewriter face the decoder writes as another character: by mark, the recogniser's letter it
 * stands on and what the decoder writes for it (ł: its stem and stroke read as a t, an i, an f; ç: a q, a g, an
 * opening bracket). */
const MARKED_LOOKS: Partial<Record<Diacritic, { on: RegExp; decoder: RegExp }>> = {
  stroke: { on: /^[lL]$/, decoder: /^[tfiIlL1|\\]$/ },
  cedilla: { on: /^[cC]$/, decoder: /^[qg<({]$/ },
};
/** Letters the decoder may write as one character where the recogniser reads two. */
const EXPANDS: Record<string, string> = { ß: "ss", æ: "ae", Æ: "AE", œ: "oe", Œ: "OE", "…": "..." };

/** The recogniser's full-width forms folded to ASCII (Ａ → A); other characters unchanged. */
function fold(ch: string): string {
  const c = ch.codePointAt(0)!;
  return c >= 0xff01 && c <= 0xff5e ? String.fromCodePoint(c - 0xfee0) : ch;
}

/** The ASCII letter a letter is built on or looks like (é → e, ł → l, Cyrillic Н → H), or the character itself. */
export function baseOf(ch: string): string {
  if (CYRILLIC_LOOKS[ch]) return CYRILLIC_LOOKS[ch]!;
  if (LATIN_LOOKS[ch]) return LATIN_LOOKS[ch]!;
  if (PUNCT_LOOKS[ch]) return PUNCT_LOOKS[ch]!;
  const d = ch.normalize("NFD");
  return d.length > 1 && /^[\x21-\x7e]$/.test(d[0]!) ? d[0]! : ch;
}

/** One of the decoder's letters the recogniser cannot be trusted to read (accented, Cyrillic, typographic). */
function beyondRecogniser(ch: string): boolean {
  // (every Cyrillic letter, those with no Latin look-alike too: ц, щ, ю, ф)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is ASCII, control characters included
  return ch.length === 1 && !/[\x00-\x7f]/.test(ch) && (baseOf(ch) !== ch || CYRILLIC.test(ch));
}

/** Two characters that differ only by what the recogniser cannot see: an accent, a script, a typographic form. */
function sameBase(a: string, b: string): boolean {
  if (a === b || MISREADS[a] === b || MISREADS[b] === a) return true;
  const x = baseOf(a),
    y = baseOf(b);
  if (x === y) return true;
  // a recogniser misreading case on look-alike shapes (Cyrillic в/В → B, к/К → k or K)
  return CYRILLIC.test(a) && x.toLowerCase() === y.toLowerCase();
}

export type Script = "latin" | "cyrillic" | "other";

/** The script of a letter (undefined for digits, punctuation, symbols, space). */
export function scriptOf(ch: string): Script | undefined {
  if (CYRILLIC.test(ch)) return "cyrillic";
  if (OTHER_SCRIPT.test(ch)) return "other";
  if (/\p{L}/u.test(ch)) return "latin";
  return undefined;
}

function allowed(ch: string, scripts: PageScripts): boolean {
  const s = scriptOf(ch);
  return s === undefined ? !OTHER_SCRIPT.test(ch) : s === "latin" || (s === "cyrillic" && scripts.cyrillic);
}

/** A recogniser character the merge may write: one the decoder's tokenizer has (after folding full-width forms). */
function writable(ch: string): boolean {
  return /^[\x20-\x7e]$/.test(ch) || WRITABLE_EXTRA.test(ch);
}

/** A character of a script the page does not use, as the ASCII it looks like (or nothing). */
function latinFor(ch: string): string {
  const b = CYRILLIC_LOOKS[ch] ?? (OTHER_SCRIPT.test(ch) ? "" : ch);
  return b;
}

// ---------------------------------------------------------------------------------------------------------------
// page scripts

/** Latin letters no Cyrillic letter looks like: a page's sure readings of them are Latin text. */
const LATIN_ONLY = /[dfghjlqstvwzDFGJLQSVWZ]/;

/**
 * Which scripts a page uses, from the recogniser's sure letters alone (available before any line is decoded).
 * A recogniser without Cyrillic reads a Cyrillic page as look-alikes (H, a, 3, B, p, c, y, x, k, M, T, n, u, r, b)
 * and unsure guesses; Latin text gives sure letters of every shape. So a page is Latin unless few of its sure
 * Latin letters (at most `latinShare`) are shapes no Cyrillic letter has (d f g h j l q s t v w z, D F G J L Q S V W Z).
 * Measured on synthetic training-type pages: Latin pages (en, fr, es) 0.28-0.52, a Ukrainian page 0.03.
 */
export function pageScripts(
  lines: readonly LineEvidence[],
  options: FaithfulOptions = FAITHFUL_DEFAULTS,
): PageScripts & { latinOnly: number; letters: number; cyrillicWords: number; words: number } {
  let letters = 0,
    latinOnly = 0;
  for (const line of lines) {
    const chars = Array.from(line.text);
    if (chars.length !== line.peaks.length) continue;
    chars.forEach((raw, i) => {
      const ch = fold(raw);
      if (!/[a-zA-Z]/.test(ch) || line.peaks[i]! < options.confident) return;
      letters++;
      if (LATIN_ONLY.test(ch)) latinOnly++;
    });
  }
  // a page with hardly any sure letters (figures, a title) decides nothing: the decoder's letters stay
  const cyrillic = letters < 20 || latinOnly <= options.latinShare * letters;
  let words = 0,
    cyrillicWords = 0;
  for (const line of lines) {
    const chars = Array.from(line.text);
    if (chars.length !== line.peaks.length) continue;
    let word: number[] = [];
    const flush = () => {
      if (word.length >= 3) {
        words++;
        if (
          cyrillicLook(
            word.map((i) => chars[i]!).join(""),
            word.map((i) => line.peaks[i]!),
            options.confident,
          )
        )
          cyrillicWords++;
      }
      word = [];
    };
    chars.forEach((c, i) => (/[\s(),.;:[\]{}"]/.test(c) ? flush() : word.push(i)));
    flush();
  }
  const mixed = cyrillicWords >= MIXED_WORDS && cyrillicWords >= MIXED_SHARE * words;
  const [jWords, isWords] = serbianWords(lines, options.confident);
  const serbian = (cyrillic || mixed) && jWords >= SERBIAN_WORDS && isWords >= SERBIAN_IS;
  // (not a page with Cyrillic words among its English: a Ukrainian manual's "Alf Tonny Bätz" is a name it quotes)
  const english = !cyrillic && !mixed && englishPage(lines.map((l) => l.text).join(" "));
  const tex = texPage(lines.map((l) => l.text));
  return { cyrillic, mixed, english, tex, serbian, latinOnly, letters, cyrillicWords, words };
}

/** A Cyrillic page with at least this many words read with a sure j and no other sure Latin-only letter is Serbian
 * (its ј, read j: "je" for "је", "6pojeBe"): the language probe's Serbian man pages 17-35 such words (one short page
 * 2), its Russian help pages none; and at least SERBIAN_IS of them are "је" ("is", read "je": 1-8 on the Serbian
 * pages), which a face whose Cyrillic the recogniser reads with j's does not write (a decorative Russian page of the
 * dev set read as Serbian without it). */
const SERBIAN_WORDS = 5;
const SERBIAN_IS = 2;

/** How many of a page's recogniser words hold a sure j and no other sure Latin-only letter, and how many are "je". */
function serbianWords(lines: readonly LineEvidence[], confident: number): [number, number] {
  let n = 0,
    is = 0;
  for (const line of lines) {
    const chars = Array.from(line.text);
    if (chars.length !== line.peaks.length) continue;
    let at = 0;
    for (const word of line.text.split(/[\s(),.;:[\]{}"]/)) {
      const letters = Array.from(word);
      const sure = (q: number) => line.peaks[at + q]! >= confident;
      if (letters.some((c, q) => /[jJ]/.test(c) && sure(q)) && !letters.some((c, q) => /[dfghlqsvwzDFGLQSVWZ]/.test(c) && sure(q))) {
        n++;
        if (/^(?:je|Je|JE)$/.test(word) && sure(0) && sure(1)) is++;
      }
      at += letters.length + 1;
    }
  }
  return [n, is];
}

/**
 * A page whose text (the recogniser's reading) is English by its function words. The decoder writes accents the
 * glyphs do not show on such pages ("Adenocarcinomá", "antisénse", "busäy": 27 of the 33 accented letters it wrote
 * on the dev set's English pages), while on a French, Italian or Spanish page they are the letters the
 * recogniser cannot read. A table of few words decides only by the few it has ("Type of surgery", "with").
 */
export function englishPage(text: string): boolean {
  return pageLanguage(text) === "en";
}

/** Cyrillic letters the recogniser reads as a Latin-only letter in some faces, beyond their look-alike (MISREADS):
 * и, щ as W, ц as L (LibreOffice's help in a typewriter face: "или" read "WnN", "страница" "CTpaHWLa"). */
const READ_AS_LATIN_ONLY: Record<string, string> = {
  и: "wW",
  И: "W",
  щ: "wW",
  Щ: "W",
  ц: "lL",
  Ц: "L",
  ы: "l",
  л: "J",
  Л: "J",
  д: "J",
  У: "V",
};

/** Latin letters no Cyrillic letter is read as, even in a word (t is: т). */
const LATIN_ONLY_WORD = /[dfghjlqsvwzDFGJLQSVWZ]/;
/** A page is mixed with at least this many Cyrillic-looking words, and this share of its words. */
const MIXED_WORDS = 5;
const MIXED_SHARE = 0.03;

/**
 * A recogniser word that reads like Cyrillic through Latin look-alikes: no sure Latin-only letter, and a digit
 * inside its letters (з → 3, б → 6, ч → 4), a small-capital look-alike after a lower-case letter (в н к м т → B H
 * K M T: "KapTy"), or one of the recogniser's few Cyrillic, Greek and CJK guesses (Φ for ф, 中 for ф). Synthetic
 * training-type pages: Latin pages 0 such words, Ukrainian pages 44 and 61, Russian pages with English 7-101.
 */
export function cyrillicLook(word: string, peaks: ArrayLike<number>, confident: number): boolean {
  if (!/[a-z]/.test(word)) return false;
  // (the l of "bl" is ы read in two)
  if (Array.from(word).some((c, i) => peaks[i]! >= confident && LATIN_ONLY_WORD.test(c) && !(c === "l" && word[i - 1] === "b")))
    return false;
  return /[a-zA-Z*][0346]{1,2}[a-zA-Z]|^[0346][a-z]{2}/.test(word) || /[a-z][BHKMT]/.test(word) || /[ΦμЯИПгЗЙ\u3000-\u9fff]/.test(word);
}

// ---------------------------------------------------------------------------------------------------------------
// the decoder's Markdown as units

interface Unit {
  /** what is written for the unit when the decoder's character stays */
  out: string;
  /** the character it stands for (entities decoded); "" for structure */
  ch: string;
  structure: boolean;
}

const TAG = /^<\/?(?:table|thead|tbody|tr|td|th)(?: [^>]*)?>/;
const ENTITY = /^&(amp|lt|gt|quot|#39);/;
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" };

/** Splits a line's Markdown into structure (separators, block markers, table tags, pipes, code fences) and characters. */
export function markdownUnits(md: string): Unit[] {
  const units: Unit[] = [];
  const chars = Array.from(md);
  let i = 0;
  let blockStart = true;
  const push = (out: string, ch: string, structure: boolean) => units.push({ out, ch, structure });
  while (i < chars.length) {
    const rest = chars.slice(i, i + 16).join("");
    const c = chars[i]!;
    if (c === "\n") {
      push(c, "", true);
      i++;
      blockStart = true;
      continue;
    }
    if (blockStart) {
      const lead = /^(?:[ \t]+|#{1,6} |[-*+] (?!$)|```[\w-]*)/.exec(rest);
      if (lead) {
        push(lead[0], "", true);
        i += Array.from(lead[0]).length;
        continue;
      }
    }
    blockStart = false;
    if (c === "<") {
      const tag = TAG.exec(chars.slice(i, i + 40).join(""));
      if (tag) {
        push(tag[0], "", true);
        i += tag[0].length;
        blockStart = true;
        continue;
      }
    }
    if (c === "&") {
      const e = ENTITY.exec(rest);
      if (e) {
        push(e[0], ENTITIES[e[1]!]!, false);
        i += e[0].length;
        continue;
      }
    }
    if (c === "|") {
      push(c, "", true);
      i++;
      continue;
    }
    // a space at the very start of a line's Markdown is the separator joining it to the paragraph before
    push(c, c, units.length === 0 && c === " ");
    if (units.at(-1)!.structure) units.at(-1)!.ch = "";
    i++;
  }
  return units;
}

// ---------------------------------------------------------------------------------------------------------------
// alignment

type Step = { d?: number; r?: number };

/** Edit-distance alignment of the decoder's characters `d` with the recogniser's `r` (look-alikes match cheaply). */
export function align(d: readonly string[], r: readonly string[]): Step[] {
  const n = d.length,
    m = r.length;
  const W = m + 1;
  const cost = new Float64Array((n + 1) * W);
  // (an unread glyph, UNREAD, costs what the space it was read as costs, and holds any one character cheaply)
  const gap = (ch: string) => (ch === " " || ch === UNREAD ? 0.6 : 1);
  // (a recogniser character after the decoder's Cyrillic letter that it reads as two glyphs, a part of it, costs
  // little: "bI" for ы, "IO" for ю; the letter aligns with one part, and the other goes with it)
  const rGap = (i: number, ch: string) => (i > 0 && partOf(d[i - 1]!, ch) ? PART_GAP : gap(ch));
  for (let i = 1; i <= n; i++) cost[i * W] = cost[(i - 1) * W]! + gap(d[i - 1]!);
  for (let j = 1; j <= m; j++) cost[j] = cost[j - 1]! + gap(r[j - 1]!);
  const sub = (a: string, b: string) =>
    a === b
      ? 0
      : b === UNREAD
        ? a === " "
          ? 0.6
          : 0.8
        : sameBase(a, b)
          ? 0.2
          : a === " " || b === " "
            ? 1.6
            : a.toLowerCase() === b.toLowerCase()
              ? 0.5
              : 1;
  for (let i = 1; i <= n; i++)
    for (let j = 1; j <= m; j++)
      cost[i * W + j] = Math.min(
        cost[(i - 1) * W + j - 1]! + sub(d[i - 1]!, r[j - 1]!),
        cost[(i - 1) * W + j]! + gap(d[i - 1]!),
        cost[i * W + j - 1]! + rGap(i, r[j - 1]!),
      );
  const steps: Step[] = [];
  let i = n,
    j = m;
  while (i > 0 || j > 0) {
    const here = cost[i * W + j]!;
    if (i > 0 && j > 0 && Math.abs(here - (cost[(i - 1) * W + j - 1]! + sub(d[i - 1]!, r[j - 1]!))) < 1e-9) steps.push({ d: --i, r: --j });
    else if (i > 0 && Math.abs(here - (cost[(i - 1) * W + j]! + gap(d[i - 1]!))) < 1e-9) steps.push({ d: --i });
    else steps.push({ r: --j });
  }
  return steps.reverse();
}

// ---------------------------------------------------------------------------------------------------------------
// the merge

/** What stands in the recogniser's reading for a glyph it read as a second space. */
const UNREAD = "\u25a1";

/** Bracket pairs the recogniser confuses with each other. */
const BRACKETS: readonly (readonly [string, string])[] = [
  ["{", "}"],
  ["[", "]"],
  ["(", ")"],
];

/** The characters of BRACKETS. */
const BRACKET_CHARS = BRACKETS.flat().join("");

/** Blank CTC steps between two digits of one number, at most (a space the recogniser missed leaves 3 or more). */
const NUMBER_GAP = 2;

/**
 * Blank CTC steps between two digits of one number on a line, at most: NUMBER_GAP, or one more than the line's
 * usual gap between two digits side by side where it has at least three such pairs and sets them apart (a
 * letter-spaced document number stamped up a form's margin: 2–3 steps between its digits).
 */
export function numberGap(text: string, gaps: ArrayLike<number> | undefined): number {
  const chars = Array.from(text);
  if (!gaps || gaps.length !== chars.length) return NUMBER_GAP;
  const between: number[] = [];
  for (let j = 1; j < chars.length; j++) if (/\d/.test(chars[j - 1]!) && /\d/.test(chars[j]!)) between.push(gaps[j]!);
  if (between.length < 3) return NUMBER_GAP;
  return Math.max(NUMBER_GAP, median(between) + 1);
}

/** A space the recogniser reads at least this surely, which the decoder left out, goes back ("(i)First item",
 * "…com/has useful", "\footnote{… $\aS{le}-i$in a footnote}": the decoder runs words together). */
const SURE_SPACE = 0.9;

/** A hyphen, comma or point between two sure digits, or a percent sign or closing bracket after one, read at least
 * this surely is the number's (numberMark in mergeLineTagged). */
const MARK_FLOOR = 0.4;

/** Latin letters cased by size alone, and the glyph heights, in x-heights, at which each case stands: at most
 * LATIN_SMALL a small letter, at least LATIN_CAPITAL a capital (a face's capitals stand 1.3-1.6 x-heights tall:
 * DejaVu Sans Mono's 1.33, Computer Modern's 1.58); and the letters that may overhang the next one's top. The same
 * sets as vision/letter-case.ts, which measures the heights (this module stays free of the vision pipeline). */
const LETTER_SIZE_CASED = /^[cosvwxzCOSVWXZ]$/;
const OVERHANGS = /^[fFPTVWY]$/;
const LATIN_SMALL = 1.08;
const LATIN_CAPITAL = 1.25;
const caseOf = (ch: string) => (ch === ch.toUpperCase() ? "capital" : "small");

/** Marks whose two glyphs side by side touch, which the recogniser reads as one (a doubled one may be the decoder's). */
const TOUCHING_MARKS = "-/=_.'`~";

/** Blank CTC steps between two characters set tight: a space there is none (a word space leaves more, or is read). */
const TIGHT_GAP = 1;
/** Marks that take no space after them (openers) or before them (closers and punctuation). */
const OPENERS = "[({“‘";
const CLOSERS = "])}”’,;:!?";

/** Blank CTC steps between two digits that hold a glyph the recogniser did not read: an en dash (not in its
 * alphabet) up to UNREAD_SPACE, a space from there (a number's own digits have 0–2 between them; 3 is as often a
 * thin space, "3 557,03", as a dash, and is left alone). */
const UNREAD_MARK = 4;
const UNREAD_SPACE = 5;
/** Blank CTC steps between two letters of a word in body type; a line whose letters stand further apart (a wide or
 * bold face set large: a heading's "Festival 2026", 3 steps between letters and 3-4 between digits) moves both
 * bounds up by as much. Measured on at least LETTER_PAIRS pairs of letters side by side. */
const LETTER_GAP = 1;
const LETTER_PAIRS = 3;

/** How many blank CTC steps more than body type a line sets between the letters of its words (0 for body type). */
export function letterSpacing(chars: readonly string[], gaps: ArrayLike<number>): number {
  const between: number[] = [];
  for (let j = 1; j < chars.length; j++) if (/\p{L}/u.test(chars[j - 1]!) && /\p{L}/u.test(chars[j]!)) between.push(gaps[j]!);
  return between.length < LETTER_PAIRS ? 0 : Math.max(0, median(between) - LETTER_GAP);
}

/**
 * The recogniser's reading with what it could not read between two sure digits put back: a range's en dash, which
 * its alphabet lacks ("100999 CFU/L" for "100–999", "0.3102.268" for "0.310–2.268": 4 blank steps between the
 * two numbers), or the space of two table cells it ran together ("156270", 5–6 steps). Each inserted character
 * takes its neighbours' lower peak and no diacritic.
 */
export function withUnreadMarks(evidence: LineEvidence, confident: number): LineEvidence {
  const { gaps, peaks } = evidence;
  const chars = Array.from(evidence.text);
  if (!gaps || gaps.length !== chars.length || peaks.length !== chars.length) return evidence;
  const wide = letterSpacing(chars, gaps);
  const at = new Set<number>();
  for (let j = 1; j < chars.length; j++)
    if (
      /\d/.test(chars[j - 1]!) &&
      /\d/.test(chars[j]!) &&
      gaps[j]! >= UNREAD_MARK + wide &&
      peaks[j - 1]! >= confident &&
      peaks[j]! >= confident
    )
      at.add(j);
  if (at.size === 0) return evidence;
  const text: string[] = [];
  const out = { peaks: [] as number[], gaps: [] as number[], diacritics: [] as number[], diacriticPeaks: [] as number[] };
  chars.forEach((c, j) => {
    if (at.has(j)) {
      text.push(gaps[j]! >= UNREAD_SPACE + wide ? " " : "–");
      out.peaks.push(Math.min(peaks[j - 1]!, peaks[j]!));
      out.gaps.push(0);
      out.diacritics.push(0);
      out.diacriticPeaks.push(0);
    }
    text.push(c);
    out.peaks.push(peaks[j]!);
    out.gaps.push(at.has(j) ? 0 : gaps[j]!);
    out.diacritics.push(evidence.diacritics?.[j] ?? 0);
    out.diacriticPeaks.push(evidence.diacriticPeaks?.[j] ?? 0);
  });
  return {
    ...evidence,
    text: text.join(""),
    peaks: out.peaks,
    gaps: out.gaps,
    ...(evidence.diacritics ? { diacritics: out.diacritics, diacriticPeaks: out.diacriticPeaks } : {}),
  };
}

/** Letters the recogniser reads for a digit of the same shape. */
const DIGIT_LOOKS: Record<string, string> = { S: "5", O: "0", o: "0", l: "1", I: "1", B: "8", Z: "2" };
/** A letter read less surely than this, among sure digits, is taken for the digit it looks like. */
const DIGIT_LOOK_UNSURE = 0.9;

/**
 * The recogniser's reading with a digit's look-alike letter read unsurely inside a number taken for that digit
 * ("S66 (45.462%" for "566", "Dunkerque 2o19"): a word of at least two sure digits and that one letter, which opens it
 * or stands inside it (a letter after a number is its unit or a word run on: "2.2S" for "2.2 Saving").
 */
export function digitLooks(r: string[], peaks: ArrayLike<number>, confident: number): string[] {
  const out = r.slice();
  for (let a = 0; a < r.length; ) {
    if (!/[\p{L}\p{N}.,%]/u.test(r[a]!)) {
      a++;
      continue;
    }
    let b = a;
    while (b < r.length && /[\p{L}\p{N}.,%]/u.test(r[b]!)) b++;
    const word = Array.from({ length: b - a }, (_, k) => a + k);
    const letters = word.filter((j) => /\p{L}/u.test(r[j]!));
    const digits = word.filter((j) => /\d/.test(r[j]!));
    const j = letters[0]!;
    if (
      letters.length === 1 &&
      digits.length >= 2 &&
      digits.every((q) => peaks[q]! >= confident) &&
      j < b - 1 &&
      /\d/.test(r[j + 1]!) &&
      DIGIT_LOOKS[r[j]!] !== undefined &&
      peaks[j]! < DIGIT_LOOK_UNSURE
    )
      out[j] = DIGIT_LOOKS[r[j]!]!;
    a = b;
  }
  return out;
}

const escapeFor = (ch: string, html: boolean) => (html ? ch.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;") : ch);

/**
 * mergeLine with where each UTF-16 unit of the result came from (for measurement, scripts/faithful-eval.mjs):
 * S structure, a the decoder agreeing with a sure slot, r a sure slot's character over the decoder's, x a sure
 * character restored, b the decoder's letter beyond the recogniser kept, w the decoder's over weak or no evidence.
 */
export function mergeLineTagged(
  decoded: string,
  evidence: LineEvidence,
  scripts: PageScripts,
  options: FaithfulOptions = FAITHFUL_DEFAULTS,
): { text: string; tags: string; restored: number } {
  evidence = withUnreadMarks(evidence, options.confident);
  const units = markdownUnits(decoded);
  const html = units.some((u) => u.structure && u.out.startsWith("<")) || /&(?:amp|lt|gt);/.test(decoded);
  const rawR = Array.from(evidence.text);
  // evidence that does not line up with its slots (an unknown class) is no evidence
  // (two spaces in a row are a glyph the recogniser could not read, "unmatched  or" for "unmatched { or": the
  // second stands for it, no evidence against the decoder's character there, nor for its own)
  const r = digitLooks(
    (rawR.length === evidence.peaks.length ? rawR.map(fold) : []).map((c, j, all) => (c === " " && all[j - 1] === " " ? UNREAD : c)),
    evidence.peaks,
    options.confident,
  );
  const peak = (j: number) => (r.length && r[j] !== UNREAD ? evidence.peaks[j]! : 0);
  const digitGap = numberGap(evidence.text, evidence.gaps);
  // (the line's median blank steps before a character, one more: a glyph's room; see unseenLetter)
  const letterGap = Math.max(TIGHT_GAP, (evidence.gaps ? median(Array.from(evidence.gaps)) : 0) + 1);
  const sure = (j: number) => j >= 0 && j < r.length && peak(j) >= options.confident && writable(r[j]!) && allowed(r[j]!, scripts);
  // a hyphen read between two sure digits, however faint, is the number's own (a phone number's, a range's, a
  // date's), and so is a comma or a point set tight between them (no more blank steps either side than a number's
  // digits have) and a percent sign or a closing bracket after one: the decoder's digit in its place, its dropping
  // it, or its digits beside it are no reading of the glyph ("229-1143" written "22931143", "428-7678" as "4287678",
  // "$59,009.89" as "$59,2009.89", "77.658%" as "77.6589", "(708)" as "(7080", the marks read at 0.5-0.65)
  const numberMark = (j: number) =>
    j > 0 &&
    j < r.length &&
    peak(j) >= MARK_FLOOR &&
    /\d/.test(r[j - 1]!) &&
    sure(j - 1) &&
    (r[j] === "%" ||
      r[j] === ")" ||
      (j + 1 < r.length &&
        /\d/.test(r[j + 1]!) &&
        sure(j + 1) &&
        (r[j] === "-" ||
          (/[.,]/.test(r[j]!) && evidence.gaps !== undefined && evidence.gaps[j]! <= digitGap && evidence.gaps[j + 1]! <= digitGap))));
  // the case slot j's glyph height shows, where the line's heights were measured
  const heightCase = (j: number) => {
    const h = evidence.heights?.[j];
    return h === undefined || !Number.isFinite(h) ? undefined : h <= LATIN_SMALL ? "small" : h >= LATIN_CAPITAL ? "capital" : undefined;
  };
  // a letter of slot j with the diacritic read there, where it is sure and the letter is the slot's own (ř for the
  // recogniser's and the decoder's r; e for the decoder's é where the glyph shows none); not on a Cyrillic page,
  // whose recogniser letters are look-alikes
  const { diacritics, diacriticPeaks } = evidence;
  // (j is a slot the alignment gave, so r is the reading the diacritics line up with)
  const marked = (j: number, ch: string) => {
    // (an English page the diacritics model left unread: an accent on a letter the recogniser read bare is the
    // decoder's invention, "Adenocarcinomá"; where the model read the page, its readings decide)
    const { base, mark } = splitMark(ch);
    // (of either case: the decoder's "Passöptions" for the recogniser's "PassOptions")
    if (scripts.english && !diacritics && mark !== "none" && base.toLowerCase() === r[j]!.toLowerCase()) return r[j]!;
    if (scripts.cyrillic || !diacritics || !diacriticPeaks || diacriticPeaks[j]! < sureAt(diacritics[j]!)) return ch;
    // (the recogniser's own 6 or ? for an o, written where the decoder wrote nothing there: the mark read on it makes
    // it the o it is, "przyjaci6lmi" -> "przyjaciólmi")
    // (a sure "none" there is a question mark's: "what?")
    if (ch === r[j] && misreadO(r, j)) return diacritics[j] ? (withMark("o", DIACRITICS[diacritics[j]!] ?? "none") ?? ch) : ch;
    // (a stroke read on the recogniser's l, where the decoder wrote a letter a typewriter face's ł looks like:
    // "zaktadek", "kiiknięcie" for "zakładek", "kliknięcie"; a cedilla on its c where the decoder wrote the q, g or
    // bracket a ç looks like: "süreq", "<ıktıya"; the glyph is the letter the recogniser read, marked)
    const read = DIACRITICS[diacritics[j]!]!;
    const looks = MARKED_LOOKS[read];
    if (looks?.on.test(r[j]!) && looks.decoder.test(ch)) return withMark(r[j]!, read) ?? ch;
    // (or an o whose glyph the recogniser misread: its mark was read as an o's)
    const own = base.toLowerCase() === splitMark(r[j]!).base.toLowerCase() || (base.toLowerCase() === "o" && misreadO(r, j));
    if (!markable(base) || !own) return ch;
    return withMark(base, DIACRITICS[diacritics[j]!] ?? "none") ?? ch;
  };
  // a box the recogniser read nothing in (a rule, a picture) has no letters or digits to write
  if (options.empty && evidence.text.length === 0) {
    const kept = units.filter((u) => u.structure || !LETTER_OR_DIGIT.test(u.ch));
    return {
      text: kept.map((u) => u.out).join(""),
      tags: kept.map((u) => (u.structure ? "S" : "w").repeat(u.out.length)).join(""),
      restored: 0,
    };
  }
  const content = units.map((u, k) => (u.structure ? -1 : k)).filter((k) => k >= 0);
  const steps = align(
    content.map((k) => units[k]!.ch),
    r,
  );
  // decoder unit -> its step; recogniser slot -> the decoder unit aligned with it
  const rToD = new Int32Array(r.length).fill(-1);
  const dToR = new Int32Array(content.length).fill(-1);
  for (const s of steps) if (s.d !== undefined && s.r !== undefined) [rToD[s.r], dToR[s.d]] = [s.d, s.r];
  // the recogniser's character aligned with decoder unit q (undefined where none is, or q is off the line)
  const alignedWith = (q: number) => (q >= 0 && q < content.length && dToR[q]! >= 0 ? r[dToR[q]!] : undefined);
  // the first and last recogniser slots the decoder's text is aligned with: restoring stops there (a bullet read as
  // a letter before the text, a hyphen the decoder joined its word over after it)
  const firstAligned = rToD.findIndex((x) => x >= 0);
  let lastAligned = -1;
  rToD.forEach((x, j) => {
    if (x >= 0) lastAligned = j;
  });
  // ... but a number is copied whole: sure digits beyond them that continue an aligned number ("0.96" -> "0.969")
  const numeric = (a: number, b: number) => r.slice(a, b + 1).every((c, q) => /[\d.,]/.test(c) && sure(a + q));
  // … and a section number the decoder left off its heading ("3  Improved verbatim commands" written "Improved
  // verbatim commands"): sure digits and dots that open the line before the first aligned slot, then the space
  const lead = /^ ?(\d{1,3}(?:\.\d{1,3})*\.?) +/.exec(r.join(""));
  const leadStart = lead ? lead[0].indexOf(lead[1]!) : 0;
  const leadEnd = lead ? leadStart + lead[1]!.length : 0;
  const leadNumber =
    lead !== null &&
    evidence.previous?.trim() !== lead[1] &&
    firstAligned >= leadEnd + 1 &&
    r.slice(leadStart, leadEnd).every((_, q) => sure(leadStart + q)) &&
    /^\p{L}/u.test(units[content[0] ?? -1]?.ch ?? "");
  const inLead = (j: number) => leadNumber && j >= leadStart && j <= leadEnd;
  // (the aligned end may be the number's point: the decoder's "10723.222" aligned from the recogniser's "." on, for
  // its "0.1723.223")
  const numberEdge = (j: number) =>
    /\d/.test(r[j]!) &&
    ((j > lastAligned && /\d/.test(r[lastAligned]!) && numeric(lastAligned, j)) ||
      (j < firstAligned && /[\d.,]/.test(r[firstAligned]!) && numeric(j, firstAligned)));
  const out: string[] = units.map((u) => (u.structure ? u.out : ""));
  const tag: string[] = units.map((u) => (u.structure ? "S" : "w"));
  let restored = 0;
  // restored characters go before the decoder unit that follows them
  const before: string[] = units.map(() => "");
  let after = "";
  const afterUnit: string[] = units.map(() => "");
  let lastR = -1;
  const nextR = (from: number) => {
    for (let k = from; k < steps.length; k++) if (steps[k]!.r !== undefined) return steps[k]!.r!;
    return r.length;
  };
  // decoder unit -> the recogniser slot aligned with it
  const rOf = new Map<number, number>();
  for (const t of steps) if (t.d !== undefined && t.r !== undefined) rOf.set(content[t.d]!, t.r);
  // where Cyrillic may stay: the page's decision, or on a mixed page each decoder word's own evidence; on a Latin
  // page, a word the decoder wrote in Cyrillic where the recogniser's reading looks Cyrillic too (a Russian heading
  // on an English page, "### Вызов службы" read "Bb30B CIyK6b")
  const cyrOk: boolean[] = units.map(() => scripts.cyrillic);
  for (let k = 0; k < units.length; ) {
    if (units[k]!.structure || !/[\p{L}\p{N}'’-]/u.test(units[k]!.ch)) {
      k++;
      continue;
    }
    let e = k;
    while (e < units.length && !units[e]!.structure && /[\p{L}\p{N}'’-]/u.test(units[e]!.ch)) e++;
    const word = units.slice(k, e);
    if (word.some((u) => CYRILLIC.test(u.ch))) {
      const slots = Array.from({ length: e - k }, (_, q) => [units[k + q]!.ch, rOf.get(k + q)] as const);
      // a Latin word the decoder wrote in Cyrillic shows sure Latin-only letters (on a Cyrillic page, two: one
      // is a misread) that no Cyrillic letter of the decoder's word is read as: its look-alike or a Latin-only
      // misread (Serbian ј and ћ are read as a sure j and h, ш as w, л as J: "6pojehu" is the decoder's "бројећи",
      // not a Latin word). Counted over the recogniser's reading of the word, the letters it read beyond the
      // decoder's too ("Microsoft" written "Місгово": its s and f)
      const own = word.filter((u) => CYRILLIC.test(u.ch)).map((u) => u.ch);
      const explained = (c: string) => own.some((d) => sameBase(d, c) || READ_AS_LATIN_ONLY[d]?.includes(c) || partOf(d, c));
      const taken = new Set(rOf.values());
      const aligned = slots.flatMap(([, j]) => (j === undefined ? [] : [j]));
      let from = Math.min(...aligned),
        to = Math.max(...aligned);
      const free = (j: number) => j >= 0 && j < r.length && !taken.has(j) && /[\p{L}\p{N}]/u.test(r[j]!);
      while (aligned.length && free(from - 1)) from--;
      while (aligned.length && free(to + 1)) to++;
      let latinHits = 0;
      for (let j = from; aligned.length && j <= to; j++)
        if (peak(j) >= options.confident && LATIN_ONLY_WORD.test(r[j]!) && !explained(r[j]!)) latinHits++;
      const read = slots.flatMap(([, j]) => (j === undefined ? [] : [j]));
      const looksCyrillic = () =>
        read.length >= 3 &&
        word.every((u) => CYRILLIC.test(u.ch) || !/\p{L}/u.test(u.ch)) &&
        cyrillicLook(
          read.map((j) => r[j]!).join(""),
          read.map((j) => peak(j)),
          options.confident,
        );
      const ok = scripts.cyrillic ? latinHits < 2 : latinHits === 0 && (scripts.mixed ? read.length > 0 : looksCyrillic());
      for (let q = k; q < e; q++) cyrOk[q] = ok;
    }
    k = e;
  }
  const at = (k: number): PageScripts => (cyrOk[k] === scripts.cyrillic ? scripts : { cyrillic: cyrOk[k]! });
  const guardAt = (k: number) => (ch: string) => (allowed(ch, at(k)) ? ch : latinFor(ch));
  // a bracket the recogniser read as another kind ("{" as "[" in TeX code) stays the decoder's where the decoder's
  // brackets of both kinds pair up in the line (the swap would leave them unpaired)
  const counts = (ch: string) => content.filter((k) => units[k]!.ch === ch).length;
  const paired = (open: string, close: string) => counts(open) === counts(close);
  const keptBracket = (d: string, rc: string) => {
    const mine = BRACKETS.find(([o, c]) => d === o || d === c);
    const theirs = BRACKETS.find(([o, c]) => rc === o || rc === c);
    return mine !== undefined && theirs !== undefined && mine !== theirs && paired(...mine) && paired(...theirs);
  };
  // …and a typewriter brace the recogniser read as f stays before a control sequence ("}{\\foldcorrfalse}") or where
  // the decoder's braces pair up in the line ("\\mathOp{expression}"; not "\\Sx@r{rame{}")
  const typewriterMark = (d: string, j: number) =>
    TYPEWRITER_MISREADS[d] === r[j] && (r[j + 1] === "\\" || BRACKETS.some(([o, c]) => (d === o || d === c) && paired(o, c)));
  // a line of TeX code, as the recogniser read it
  const texCode = TEX_CODE.test(evidence.text);
  // …and the "%" that ends a line of TeX code (its line end is no space), which the decoder leaves off as it leaves
  // off a line's hyphen
  const texComment = (j: number) => texCode && j === r.length - 1 && j > lastAligned && r[j] === "%";
  // decoder unit q stands where letterO takes a zero for an O: after two letters or a backslash, before a small letter
  const ch = (q: number) => (q >= 0 && q < content.length ? units[content[q]!]!.ch : "");
  const capitalO = (q: number) =>
    ((/\p{L}/u.test(ch(q - 1)) && /\p{L}/u.test(ch(q - 2))) || ch(q - 1) === "\\") && /\p{Ll}/u.test(ch(q + 1));
  // the other letters of the word decoder unit q stands in; q stands among capitals where they are two or more, all
  // capitals ("API", "DIVISION"), where a sans face's I is read as an l ("APl", "DIVISlON"; not "Il", "El")
  const wordOthers = (q: number) => {
    let a = q,
      b = q;
    while (/\p{L}/u.test(ch(a - 1))) a--;
    while (/\p{L}/u.test(ch(b + 1))) b++;
    return Array.from({ length: b - a + 1 }, (_, k) => a + k).filter((p) => p !== q);
  };
  const amongCapitals = (q: number) => {
    const others = wordOthers(q);
    return others.length >= 2 && others.every((p) => /\p{Lu}/u.test(ch(p)));
  };
  let lastD = -1;
  steps.forEach((s, k) => {
    if (s.d !== undefined) {
      const u = units[content[s.d]!]!;
      const d = u.ch;
      if (s.r !== undefined) {
        const rc = r[s.r]!;
        lastR = s.r;
        if (d === rc) [out[content[s.d]!], tag[content[s.d]!]] = [u.out, sure(s.r) ? "a" : "w"];
        else if (d === BROKEN)
          // a letter beyond the decoder's vocabulary whose bytes it wrote only in part: the recogniser's letter there
          [out[content[s.d]!], tag[content[s.d]!]] = [writable(rc) && allowed(rc, scripts) ? escapeFor(rc, html) : "", "r"];
        else if (beyondRecogniser(d) && sameBase(d, rc) && allowed(d, at(content[s.d]!)))
          [out[content[s.d]!], tag[content[s.d]!]] = [u.out, "b"];
        else if (O_FAMILY.test(d) && misreadO(r, s.r)) [out[content[s.d]!], tag[content[s.d]!]] = [u.out, "w"];
        else if (SIZE_CASED.test(d) && d === rc.toUpperCase() && d !== rc && !/\p{L}/u.test(ch(s.d - 1)) && /\p{Ll}/u.test(ch(s.d + 1)))
          // a capital the recogniser read small, opening a word (a noun, a sentence's first word: "Wenn",
          // "Optionsfeld", "Objekte" read "wenn", "optionsfeld", "objekte" in a typewriter face)
          [out[content[s.d]!], tag[content[s.d]!]] = [u.out, "w"];
        else if (
          (sure(s.r) || (numberMark(s.r) && /\d/.test(d))) &&
          !(CYRILLIC.test(d) && cyrOk[content[s.d]!]) &&
          !keptBracket(d, rc) &&
          !typewriterMark(d, s.r) &&
          !(rc === "l" && d === "I" && amongCapitals(s.d))
        )
          [out[content[s.d]!], tag[content[s.d]!]] = [escapeFor(rc, html), "r"];
        else if ((d === "o" || d === "O") && rc === "0" && texCode && capitalO(s.d))
          // a typewriter O, read as a zero by the recogniser and as a small o by the decoder ("\\Process0ptions")
          [out[content[s.d]!], tag[content[s.d]!]] = ["O", "r"];
        else if (texCode && (rc === "{" || rc === "}") && !LETTER_OR_DIGIT.test(d) && !BRACKET_CHARS.includes(d) && d !== " ")
          // a brace the recogniser read, weakly, where the decoder wrote a mark in TeX code ("\\DeclareOption=twocolumn}")
          [out[content[s.d]!], tag[content[s.d]!]] = [escapeFor(rc, html), "r"];
        else if (
          CYRILLIC.test(d) &&
          cyrOk[content[s.d]!] &&
          peak(s.r) >= (SERBIAN_TWIN[rc] ? SERBIAN_TWIN_SURE : TWIN_SURE) &&
          lookAlikeTwin(d, rc, scripts.serbian) !== d
        )
          // a Cyrillic letter where the recogniser read, sure, the look-alike of another that has no other: that
          // letter ("Коннертер" for the recogniser's "KOHBepTep")
          [out[content[s.d]!], tag[content[s.d]!]] = [lookAlikeTwin(d, rc, scripts.serbian), "r"];
        else if (!allowed(d, at(content[s.d]!)))
          out[content[s.d]!] = writable(rc) && allowed(rc, scripts) && LETTER_OR_DIGIT.test(rc) ? escapeFor(rc, html) : latinFor(d);
        else [out[content[s.d]!], tag[content[s.d]!]] = [u.out, "w"];
      } else {
        // the decoder wrote a character the recogniser saw nothing for
        const prev = lastR,
          next = nextR(k + 1);
        // (an unread glyph holds one of the decoder's characters, not a word of them: "table pable depicts")
        const held = (j: number) => sure(j) || r[j] === UNREAD || numberMark(j);
        const inRun = (prev >= 0 || next < r.length) && (prev < 0 || held(prev)) && (next >= r.length || held(next)) && r.length > 0;
        // a doubled letter the recogniser read once (CTC merges a run without a blank between): the decoder's
        // neighbour is the same letter, aligned with the recogniser's
        const neighbour = (q: number) => alignedWith(q) === d && units[content[q]!]!.ch === d;
        // (a mark repeated more than once beyond the recogniser's run of it is no doubled mark: the decoder's "####1"
        // for the recogniser's sure "#1" in TeX code)
        const runOf = (chars: (q: number) => string | undefined, q: number): [number, number] => {
          let a = q,
            b = q;
          while (chars(a - 1) === d) a--;
          while (chars(b + 1) === d) b++;
          return [a, b];
        };
        const [d0, d1] = runOf(ch, s.d);
        const alignedAt = Array.from({ length: d1 - d0 + 1 }, (_, k) => d0 + k).find((q) => alignedWith(q) === d);
        const aligned = alignedAt === undefined ? undefined : dToR[alignedAt]!;
        const recogniserRun = aligned === undefined ? 0 : (([a, b]) => b - a + 1)(runOf((q) => r[q], aligned));
        // (not dashes: the recogniser reads TeX's "---" as one)
        const overrun = !LETTER_OR_DIGIT.test(d) && d !== "-" && aligned !== undefined && d1 - d0 + 1 > recogniserRun + 1;
        // (not a digit: numbers are copied digit for digit, and the decoder's "100 000" for a sure "10 000" is its own)
        // (nor a mark whose two glyphs stand apart, "!!", "**", "##", "@@", "}}": CTC reads each of those, and merges
        // only marks whose pair touches, "--", "//", "==")
        const doubled =
          (neighbour(s.d - 1) || neighbour(s.d + 1)) &&
          !overrun &&
          !/\d/.test(d) &&
          (LETTER_OR_DIGIT.test(d) || TOUCHING_MARKS.includes(d));
        // the second letter of a typographic ligature (fi, fl, ff, ffi, ffl are one glyph, which the recogniser
        // reads as its f: "fle" for "file")
        const ligature = /[fil]/.test(d) && s.d > 0 && units[content[s.d - 1]!]!.ch === "f";
        // a letter the recogniser cannot read, written right after its own base letter that the recogniser read there,
        // is that letter twice ("definiíalt" for the recogniser's "definialt"), not a letter it missed; before it, it
        // is a word's own letters, which the recogniser read as one ("détaillées": "detailles")
        // (Latin only: a Cyrillic letter's base is a look-alike, and "оо" is two letters the recogniser reads as one)
        const twin = (q: number) => {
          const rc = alignedWith(q);
          return rc !== undefined && units[content[q]!]!.ch !== d && sameBase(d, rc);
        };
        const beside = beyondRecogniser(d) && !CYRILLIC.test(d) && twin(s.d - 1);
        // …and so is one before letters the recogniser saw nothing of either, then the letter it read there, of the
        // same base ("stejnême" for its "stejne": ê and m over the one e, which takes the diacritic read on it; a
        // French "ée" is two letters side by side, with nothing between)
        const echo = (() => {
          if (!beyondRecogniser(d) || CYRILLIC.test(d)) return false;
          let skipped = 0;
          for (let q = k + 1; q < steps.length; q++) {
            const t = steps[q]!;
            if (t.d === undefined) return false;
            const c = units[content[t.d]!]!.ch;
            if (t.r === undefined) {
              if (!/\p{L}/u.test(c) || beyondRecogniser(c)) return false;
              skipped++;
              continue;
            }
            return skipped > 0 && sameBase(d, r[t.r]!) && sameBase(d, c) && sure(t.r);
          }
          return false;
        })();
        const droppable = LETTER_OR_DIGIT.test(d)
          ? !doubled && !ligature && (!beyondRecogniser(d) || beside || echo)
          : d === " "
            ? options.spaces !== "none" &&
              prev >= 0 &&
              next < r.length &&
              r[prev] !== " " &&
              r[next] !== " " &&
              (options.spaces === "letters" || !LETTER_OR_DIGIT.test(r[prev]!) || !LETTER_OR_DIGIT.test(r[next]!))
            : // the recogniser misses thin apostrophes and reads a doubled mark once ("--", "//")
              options.punctuation &&
              !/\s/.test(d) &&
              (!/['’‘]/.test(d) || (!/\p{L}/u.test(r[prev] ?? "") && !/\p{L}/u.test(r[next] ?? ""))) &&
              !doubled;
        // inside a number the recogniser read whole and sure, no mark comes between two of its characters that it
        // read side by side: numbers are copied digit for digit ("8.12’2%", "9, 999" for its "8.122%", "9,999"); a
        // space between two digits stays where the recogniser saw a gap there (it runs table cells together: "156
        // 270" read "156270", with 5 blank steps between the 6 and the 2 where a number's digits have 0–2)
        // (the decoder's character stands between two sure slots the recogniser read side by side)
        const between = prev >= 0 && next === prev + 1 && next < r.length && sure(prev) && sure(next);
        // (or a mark of the number's it read unsure, numberMark: "2,878, 659", "$91, 922.76" for its "2,878,659",
        // "$91,922.76" with the comma at 0.6)
        const inNumber =
          (between || (next === prev + 1 && numberMark(prev))) &&
          !LETTER_OR_DIGIT.test(d) &&
          (d !== " " || /[.,]/.test(r[prev]!) || (evidence.gaps !== undefined && evidence.gaps[next]! <= digitGap)) &&
          /\d/.test(r[next]!) &&
          (/\d/.test(r[prev]!) || (/[.,]/.test(r[prev]!) && /\d/.test(r[prev - 1] ?? "") && sure(prev - 1)));
        // a space the recogniser saw no gap for (at most TIGHT_GAP blank steps between its two sure characters) beside
        // a mark that takes none: inside an opening bracket or quote, before a closing one or a punctuation mark
        // ("[ 3, 15]", "“ acmart”", "tions ."), and beside any mark in TeX code ("{breakable, colback=…}",
        // "\providecommand \If…"), whose commas and brackets are set tight; a space after a comma or a dot in prose
        // stays
        const q = s.d;
        const tight = (a: string, b: string) =>
          (texCode && (!LETTER_OR_DIGIT.test(a) || !LETTER_OR_DIGIT.test(b))) ||
          OPENERS.includes(a) ||
          CLOSERS.includes(b) ||
          (b === "." && LETTER_OR_DIGIT.test(a)) ||
          // …and a space inside a word the decoder split beside a letter beyond the recogniser, an accented or a Cyrillic
          // one, where the recogniser read the two letters around it side by side ("poč átek", "úr ovně", "экст спорт"
          // for its "pocatek", "urovne", "3KCHIOopT"; between two letters it can read, the recogniser misses word
          // spaces in tight prose: "will use" read "willuse")
          (/\p{L}/u.test(a) && /\p{L}/u.test(b) && (beyondRecogniser(ch(q - 1)) || beyondRecogniser(ch(q + 1))));
        const unseenSpace =
          between &&
          d === " " &&
          evidence.gaps !== undefined &&
          r[prev] !== " " &&
          r[next] !== " " &&
          evidence.gaps[next]! <= TIGHT_GAP &&
          tight(r[prev]!, r[next]!);
        // a letter beyond the recogniser's alphabet written between two sure characters it read side by side
        // (no more blank steps between them than one over the line's median gap between characters: no room for a
        // glyph it could not read) is no letter of the page ("ILö6" for its sure "IL6", "podoêbě", "systémáům"; a
        // Cyrillic letter the decoder adds to a long word, "конивертера" for the look-alikes "KOHBepTepa");
        // an accent on a letter it read goes on the letter, aligned, not here
        const unseenLetter =
          between && LETTER_OR_DIGIT.test(d) && beyondRecogniser(d) && evidence.gaps !== undefined && evidence.gaps[next]! <= letterGap;
        // (an overrun goes wherever the recogniser's run of the mark is sure, its neighbours sure or not)
        if (
          !allowed(d, at(content[s.d]!)) ||
          (inRun && droppable) ||
          inNumber ||
          unseenSpace ||
          unseenLetter ||
          (overrun && sure(aligned!) && options.punctuation)
        )
          out[content[s.d]!] = "";
        else [out[content[s.d]!], tag[content[s.d]!]] = [u.out, "w"];
      }
      lastD = s.d;
    } else {
      // a recogniser character the decoder dropped: restored when sure, between the first and last aligned slots
      const j = s.r!;
      lastR = j;
      const rc = r[j]!;
      const flanked =
        options.restore === "word"
          ? j > 0 &&
            j + 1 < r.length &&
            rToD[j - 1]! >= 0 &&
            rToD[j + 1]! >= 0 &&
            LETTER_OR_DIGIT.test(r[j - 1]!) &&
            LETTER_OR_DIGIT.test(r[j + 1]!)
          : firstAligned >= 0 && ((firstAligned < j && j < lastAligned) || numberEdge(j) || texComment(j));
      // (a space between two characters the decoder dropped as well goes back with them: words the decoder lost
      // whole, "Adenocarcinoma with mucinous features", are restored as words, not "Adenocarcinomawithmucinous…")
      // (one side may be the decoder's: it aligns a stray letter of its own with the end of a dropped word)
      const dropped = (q: number) => q >= 0 && q < r.length && rToD[q]! < 0 && LETTER_OR_DIGIT.test(r[q]!);
      const aroundDropped = (q: number) =>
        LETTER_OR_DIGIT.test(r[q - 1] ?? "") && LETTER_OR_DIGIT.test(r[q + 1] ?? "") && (dropped(q - 1) || dropped(q + 1));
      const kind =
        LETTER_OR_DIGIT.test(rc) ||
        (options.restore === "line" && rc !== " " && writable(rc)) ||
        (options.restore === "line" && rc === " " && (options.spaces !== "none" || aroundDropped(j) || peak(j) >= SURE_SPACE));
      // nor half of what the decoder wrote as one letter: ß for "ss", Cyrillic ы for "bl", ю for "IO"
      const nextD = steps.slice(k + 1).find((t) => t.d !== undefined)?.d;
      const cyr = (q: number | undefined) => q !== undefined && q >= 0 && CYRILLIC.test(units[content[q]!]!.ch) && cyrOk[content[q]!]!;
      const expanded = (lastD >= 0 && (EXPANDS[units[content[lastD]!]!.ch] ?? "").length > 1) || cyr(lastD) || cyr(nextD);
      // (a space read between two table cells or before a line's structure is theirs: "<td>3.32T" takes none)
      const atStructure = rc === " " && nextD !== undefined && units[content[nextD]! - 1]?.structure === true;
      // …but a letter dropped inside a Cyrillic word, whose look-alike the recogniser read sure and which stands
      // for one letter only, goes back as that letter ("отображется" for "OT06paxaeTCA"), where it is no part of
      // a neighbour the recogniser reads as two (ы "bl", ю "IO", њ "Hb")
      const twin =
        cyr(lastD) &&
        nextD === lastD + 1 &&
        cyr(nextD) &&
        twinOf(rc, scripts.serbian) !== undefined &&
        peak(j) >= TWIN_SURE &&
        flanked &&
        !partOf(ch(lastD), rc) &&
        !partOf(ch(nextD!), rc);
      const restoreHere = inLead(j)
        ? j === leadEnd || sure(j)
        : kind && (sure(j) || numberMark(j)) && flanked && (!expanded || twin) && !atStructure;
      if (restoreHere) {
        // before the decoder's next character, or after its last one (inside any closing tag)
        const upper = twin && ch(lastD) === ch(lastD).toUpperCase() && ch(nextD!) === ch(nextD!).toUpperCase();
        const one = twinOf(rc, scripts.serbian) ?? "";
        const written = escapeFor(twin ? (upper ? one.toUpperCase() : one) : marked(j, rc), html);
        if (nextD === undefined) {
          if (content.length) afterUnit[content.at(-1)!] += written;
          else after += written;
        } else before[content[nextD]!] += written;
        restored++;
      }
    }
  });
  // on a Serbian page, the decoder's н and л where the recogniser read the soft sign's b of њ and љ, in place of the
  // letter or right after the letter's look-alike ("стане", "ПОСЛЕДНИ" for the recogniser's "CTabe", "OCNEAHbИ")
  if (scripts.serbian)
    steps.forEach((t, k) => {
      if (t.d === undefined || t.r === undefined) return;
      const q = content[t.d]!;
      const soft = SOFTENED[out[q]!];
      const next = steps[k + 1];
      if (soft && cyrOk[q] && (r[t.r] === "b" || (next?.d === undefined && next?.r !== undefined && r[next.r] === "b")))
        [out[q], tag[q]] = [soft, "r"];
    });
  // …and a small l there, the recogniser's or the decoder's, is that I, where the letters written round it are
  // capitals too (not where the recogniser's small letters were written over the decoder's capitals: a name set in
  // small capitals, "Carlisle" for the decoder's "CARLISLE", vision/letter-case.ts smallCaps)
  const written = (p: number) => (p >= 0 && p < content.length ? out[content[p]!]! : "");
  content.forEach((q, i) => {
    if (out[q] === "l" && amongCapitals(i) && wordOthers(i).every((p) => !/\p{Ll}/u.test(written(p)))) [out[q], tag[q]] = ["I", "r"];
  });
  // in a line of TeX code, a Latin letter cased by size alone (c o s v w x z) takes the case its glyph's height
  // shows, where the recogniser read that letter there, of either case: the recogniser and the decoder both tell
  // these letters' case by size, and in a typewriter face, where no language tells it either, both miss it
  // ("\sX@width", "\Sx@vsep" for "\SX@width", "\SX@vsep": the S 1.45 x-heights tall, as tall as the line's d). In
  // prose their agreement stands (a height measured on a glyph a neighbour overhangs or touches reads "infOrmation",
  // "USer’s"). Not beside a digit or after a letter that may overhang it, nor in a word of small capitals (a capital
  // of another shape in it stands under a capital's height: "CLASS" set in small capitals stays)
  if (evidence.heights && texCode && !scripts.cyrillic)
    content.forEach((q, i) => {
      const j = rOf.get(q);
      const written = out[q]!;
      if (j === undefined || !LETTER_SIZE_CASED.test(written) || written.toLowerCase() !== r[j]!.toLowerCase()) return;
      if (/\p{N}/u.test(ch(i - 1) + ch(i + 1)) || OVERHANGS.test(ch(i - 1))) return;
      const shown = heightCase(j);
      if (shown === undefined || shown === caseOf(written)) return;
      const word = wordOthers(i).map((p) => [units[content[p]!]!.ch, rOf.get(content[p]!)] as const);
      if (word.some(([c, at]) => /\p{Lu}/u.test(c) && !LETTER_SIZE_CASED.test(c) && at !== undefined && heightCase(at) !== "capital"))
        return;
      [out[q], tag[q]] = [shown === "capital" ? written.toUpperCase() : written.toLowerCase(), "r"];
    });
  // Cyrillic letters take the case their glyphs' heights show (the recogniser's look-alike tells none: "M" for м and
  // М alike; the decoder's "мастер", "АкТивирует" for "Мастер", "Активирует")
  if (evidence.heights)
    cyrillicWordCase(units, out, tag, cyrOk, (q) => {
      const j = rOf.get(q);
      // (a slot read as the letter's look-alike, or as a letter where it has none: the alignment may pair the
      // decoder's letter with another glyph, a space, a mark)
      const d = out[q]!;
      // (of either case: the case is what the height tells, "N" is the look-alike of И, read for и too)
      const fits = (rc: string) => (CYRILLIC_LOOKS[d] ? readAsEitherCase(d, rc) : LETTER_OR_DIGIT.test(rc));
      return j !== undefined && fits(r[j]!) ? [evidence.heights![j]!, evidence.depths?.[j] ?? Number.NaN] : undefined;
    });
  // letters aligned with a slot take the diacritic read on its glyph
  for (const t of steps)
    if (t.d !== undefined && t.r !== undefined) {
      const q = content[t.d]!;
      const m = marked(t.r, out[q]!);
      if (m !== out[q]) [out[q], tag[q]] = [m, "m"];
    }
  // a run of characters only the decoder wrote, whose letters and marks were all dropped, loses its spaces too
  // ("of course be be saved" -> "of course be saved", not "of cours e be saved")
  for (let k = 0; k < steps.length; ) {
    if (steps[k]!.r !== undefined) {
      k++;
      continue;
    }
    let e = k;
    while (e < steps.length && steps[e]!.r === undefined) e++;
    const run = steps.slice(k, e).map((t) => content[t.d!]!);
    const solid = run.filter((q) => units[q]!.ch !== " ");
    // (a space next to structure, a table cell's padding, stays)
    const inside = (q: number) => q > 0 && q + 1 < units.length && !units[q - 1]!.structure && !units[q + 1]!.structure;
    if (solid.length && solid.every((q) => out[q] === "")) for (const q of run) if (inside(q)) out[q] = "";
    k = e;
  }
  let text = "";
  let tags = "";
  const tagged = (t: string, c: string, k = -1) => {
    // nothing of a script the page does not use survives (a fallback line is the recogniser's own reading)
    // (nor a letter the decoder wrote in part: U+FFFD)
    const g = Array.from(t)
      .map(k >= 0 ? guardAt(k) : (ch) => (allowed(ch, scripts) ? ch : latinFor(ch)))
      .join("")
      .replaceAll(BROKEN, "");
    text += g;
    tags += c.repeat(g.length);
  };
  units.forEach((u, k) => {
    tagged(before[k]!, "x");
    tagged(u.structure ? u.out : out[k]!, u.structure ? "S" : tag[k]!, k);
    tagged(afterUnit[k]!, "x");
  });
  tagged(after, "x");
  const typeset = typesetLogos(text, tags, restored);
  // (a meta-variable's word between brackets the recogniser read unsure, on a page of TeX documentation)
  const unsure = scripts.tex ? unsureAngles(evidence.text, evidence.peaks) : new Set<string>();
  const lettered = letterL(letterO(typeset.text));
  const scripted = scripts.cyrillic || scripts.mixed ? oneScript(lettered) : lettered;
  return texBraces(texSpacing({ ...typeset, text: texAngles(scripted, html, unsure) }));
}

/** Latin letters the recogniser reads for one Cyrillic letter only (not A: а or д; n: п or л; u: и or ц; M: м or
 * и, "AMana3OH" for "диапазон"; b, 3, W; nor r: no probe page gains from it). */
const ONE_TWIN: Record<string, string> = {
  a: "а",
  B: "в",
  e: "е",
  H: "н",
  K: "к",
  k: "к",
  O: "о",
  o: "о",
  P: "р",
  p: "р",
  C: "с",
  c: "с",
  T: "т",
  X: "х",
  x: "х",
  y: "у",
  Y: "у",
};
/** Serbian's н and л with the soft sign joined: њ and љ. */
const SOFTENED: Record<string, string> = { н: "њ", Н: "Њ", л: "љ", Л: "Љ" };
/** Cyrillic letters the recogniser reads as two glyphs, and what it reads for their parts (ы "bl", ю "IO", њ "Hb",
 * ж ">K<" or "x"; help pages in Russian and Serbian man pages; п "HI" in Computer Modern). */
const READ_IN_TWO: Record<string, string> = {
  ы: "blI1i",
  ю: "IlO0o",
  њ: "Hb",
  љ: "nJb",
  щ: "Ww,",
  ж: "xXK*<>",
  ф: "Φopq",
  п: "H",
};
/** Whether the recogniser's `rc` beside the decoder's Cyrillic letter `d` may be a part of its glyph. */
const partOf = (d: string, rc: string) => READ_IN_TWO[d.toLowerCase()]?.includes(rc) === true;
/** …and on a Serbian page, its ћ, which the recogniser reads as h ("OBEhAHbE" for "ПОВЕЋАЊЕ", where the decoder
 * wrote "ПОВЕГЕНЕ"; not j for ј: it reads л as J too). */
const SERBIAN_TWIN: Record<string, string> = { h: "ћ" };

/** …which the recogniser reads unsure, the glyph being no Latin letter ("OBEhAHbE": its h at 0.59-0.9). */
const SERBIAN_TWIN_SURE = 0.5;

/** The one Cyrillic letter a recogniser's letter stands for (ONE_TWIN; SERBIAN_TWIN on a Serbian page), if any. */
function twinOf(rc: string, serbian = false): string | undefined {
  return ONE_TWIN[rc] ?? (serbian ? SERBIAN_TWIN[rc] : undefined);
}

/** Other letters the recogniser reads sure for a Cyrillic letter besides its look-alike (я as a: "nam'aTi" for
 * "пам’яті"). */
const READ_ALSO: Record<string, string> = { я: "aH", Я: "AH", и: "H", й: "H", ы: "H", п: "H", Г: "T" };
/** The least peak at which the recogniser's look-alike overrides the decoder's Cyrillic letter. */
const TWIN_SURE = 0.9;

/** Whether the recogniser's `rc` is what it reads for the Cyrillic letter `d` in either case: its look-alike, or a
 * Latin-only letter it misreads it as (READ_AS_LATIN_ONLY). */
function readAsEitherCase(d: string, rc: string): boolean {
  const looks = (c: string) => sameBase(c, rc) || READ_AS_LATIN_ONLY[c]?.includes(rc) === true;
  return looks(d.toLowerCase()) || looks(d.toUpperCase());
}

/** What a recogniser character that is a part of the decoder's Cyrillic letter before it costs the alignment. */
const PART_GAP = 0.3;

/**
 * The Cyrillic letter a recogniser's sure look-alike `rc` stands for, in the case of the decoder's letter `d` there,
 * where `d` has a known look-alike (CYRILLIC_LOOKS) that `rc` is not, of either case, and `rc` stands for one letter
 * only (ONE_TWIN); else `d`.
 */
function lookAlikeTwin(d: string, rc: string, serbian = false): string {
  const twin = twinOf(rc, serbian);
  if (!twin || !CYRILLIC_LOOKS[d] || partOf(d, rc)) return d;
  const also = (c: string) => READ_ALSO[c]?.includes(rc) === true;
  if (readAsEitherCase(d, rc) || also(d.toLowerCase()) || also(d.toUpperCase())) return d;
  return d === d.toUpperCase() ? twin.toUpperCase() : twin;
}

/** Cyrillic letters whose capital is their small letter set larger (not б ф ђ ћ ґ, whose small letter rises above
 * the x-height, nor й ё і ї ј, whose mark may join the glyph's body). */
const CYRILLIC_SIZE_CASED = /^[авгдежзиклмнопрстухцчшщъыьэюяєљњџАВГДЕЖЗИКЛМНОПРСТУХЦЧШЩЪЫЬЭЮЯЄЉЊЏ]$/;
/** A glyph at most this many times the line's x-height is a small letter; at least CYRILLIC_CAPITAL, a capital
 * (help pages in DejaVu Sans, 172 lines: small letters 0.97-1.01, 2nd to 98th percentile; capitals 1.21-1.32). */
const CYRILLIC_SMALL = 1.08;
const CYRILLIC_CAPITAL = 1.15;
/** A glyph reaching this many x-heights below the baseline has a descender; one reaching at most CYRILLIC_ON_BASELINE
 * stands on it. */
const CYRILLIC_DESCENDER = 0.2;
const CYRILLIC_ON_BASELINE = 0.07;

/** The case a Cyrillic letter's glyph height over its line's x-height shows: "small", "capital" or undefined (not
 * a letter cased by size alone, unmeasured, or between the two). */
function caseByHeight(ch: string, [height, depth]: readonly [number, number]): "small" | "capital" | undefined {
  // (ф rises above the x-height as Ф does; it reaches below the baseline, Ф stands on it)
  if (/^[фФ]$/.test(ch))
    return depth >= CYRILLIC_DESCENDER ? "small" : depth <= CYRILLIC_ON_BASELINE && height >= CYRILLIC_CAPITAL ? "capital" : undefined;
  if (!CYRILLIC_SIZE_CASED.test(ch)) return undefined;
  return height <= CYRILLIC_SMALL ? "small" : height >= CYRILLIC_CAPITAL ? "capital" : undefined;
}

/**
 * Sets the case of each Cyrillic word's letters in `out` (in place) from their glyphs' heights (`heightOf(unit)`),
 * where Cyrillic may stand (`cyrOk`): a letter measured takes its case; one not measured (its slot unread, or its
 * glyph touching a neighbour) takes the case the word's other measured letters agree on, all capitals ("ПОСЛЕДЊИ",
 * two at least) or, past the first letter, all small.
 */
export function cyrillicWordCase(
  units: readonly Unit[],
  out: string[],
  tag: string[],
  cyrOk: readonly boolean[],
  heightOf: (unit: number) => readonly [number, number] | undefined,
): void {
  for (let k = 0; k < units.length; ) {
    if (units[k]!.structure || !/\p{L}/u.test(units[k]!.ch)) {
      k++;
      continue;
    }
    let e = k;
    while (e < units.length && !units[e]!.structure && /\p{L}/u.test(units[e]!.ch)) e++;
    const word = Array.from({ length: e - k }, (_, i) => k + i).filter((q) => out[q]!.length === 1 && CYRILLIC.test(out[q]!) && cyrOk[q]);
    const read = new Map(
      word.map((q) => {
        const measured = heightOf(q);
        return [q, measured && caseByHeight(out[q]!, measured)] as const;
      }),
    );
    const later = word
      .filter((q) => q !== k)
      .map((q) => read.get(q))
      .filter((c) => c !== undefined);
    const all = [...read.values()].filter((c) => c !== undefined);
    const agreed =
      all.length >= 2 && all.every((c) => c === "capital")
        ? "capital"
        : later.length >= 2 && later.every((c) => c === "small")
          ? "small"
          : undefined;
    for (const q of word) {
      const bySize = /^[фФ]$/.test(out[q]!) || CYRILLIC_SIZE_CASED.test(out[q]!);
      const c = read.get(q) ?? (bySize && (q !== k || agreed === "capital") ? agreed : undefined);
      const cased = c === "small" ? out[q]!.toLowerCase() : c === "capital" ? out[q]!.toUpperCase() : out[q]!;
      if (cased !== out[q]) [out[q], tag[q]] = [cased, "m"];
    }
    k = e;
  }
}

/** Latin letters and the Cyrillic letters of the same shape (ћ and ј are Serbian's, і Ukrainian's), and back. */
const CYRILLIC_TWIN: Record<string, string> = Object.fromEntries(
  Array.from("aeopcyxikjhABEKMHOPCTXIJ").map((ch, k) => [ch, "аеорсухікјћАВЕКМНОРСТХІЈ"[k]!]),
);
const LATIN_TWIN: Record<string, string> = Object.fromEntries(Object.entries(CYRILLIC_TWIN).map(([a, b]) => [b, a]));

/**
 * Words of a page that allows Cyrillic written in one script: a word of Latin and Cyrillic letters ("hе" for
 * "ће", "аudacity", "PДАТОТЕКЕ") takes the script of most of its letters (on a tie, that of most of the line's
 * letters; on a tie there too, it stays), its other letters turned into their twins of the same shape; a word with
 * a letter that has no twin there is tried in the other script, and left as written when neither holds all its
 * letters.
 */
export function oneScript(text: string): string {
  if (!CYRILLIC.test(text) || !/[A-Za-z]/.test(text)) return text;
  const count = (letters: string[]): [number, number] => [
    letters.filter((ch) => CYRILLIC.test(ch)).length,
    letters.filter((ch) => /[A-Za-z]/.test(ch)).length,
  ];
  const [lineCyrillic, lineLatin] = count(Array.from(text));
  return text.replace(/\p{L}+/gu, (word) => {
    const letters = Array.from(word);
    const [cyrillic, latin] = count(letters);
    if (!cyrillic || !latin) return word;
    const into = (twins: Record<string, string>, from: RegExp) =>
      letters.every((ch) => !from.test(ch) || twins[ch]) ? letters.map((ch) => (from.test(ch) ? twins[ch]! : ch)).join("") : undefined;
    const toCyrillic = () => into(CYRILLIC_TWIN, /[A-Za-z]/),
      toLatin = () => into(LATIN_TWIN, CYRILLIC);
    const lean = cyrillic !== latin ? cyrillic - latin : lineCyrillic - lineLatin;
    if (!lean) return word;
    return (lean > 0 ? (toCyrillic() ?? toLatin()) : (toLatin() ?? toCyrillic())) ?? word;
  });
}

/**
 * TeX code set in a typewriter face, whose letters sit in cells of one width: the gap of a narrow glyph's cell reads
 * as a space ("\newcommand\LL@debug@info [1] {%" for "…info[1]{}%"). A space after a control word or a closing
 * bracket, before an opening one, is such a gap: TeX ignores it, so listings hardly ever have one (none in the dev
 * truth's TeX lines, 55 in our readings of them); a word before a brace ("except {") keeps its space.
 */
function texSpacing(merged: { text: string; tags: string; restored: number }): { text: string; tags: string; restored: number } {
  const { text, tags } = merged;
  if (!text.includes("\\")) return merged;
  let outText = "",
    outTags = "",
    from = 0;
  // (each gap's tag goes with it: the tags stay one per unit of the text)
  for (const m of text.matchAll(TEX_GAP)) {
    const at = m.index! + m[1]!.length;
    outText += text.slice(from, at);
    outTags += tags.slice(from, at);
    from = at + 1;
  }
  return { ...merged, text: outText + text.slice(from), tags: outTags + tags.slice(from) };
}
/**
 * TeX code set in a typewriter face loses opening braces: both readers miss cmtt's "{" between "}" and "\\" or "#"
 * ("\\DeclareOption{twoside}\\OptionNotUsed}" for "…{twoside}{\\OptionNotUsed}", "\\def\\x#1#1}" for "\\def\\x#1{#1}").
 * In a line of TeX, a "}" that closes a group the line never opened, where a group closed at depth zero right before a
 * control sequence or a parameter (or a \\def's parameter text ended, or a ⟨meta-variable⟩ opened right after an
 * argument: "\\norm*[⟨size⟩]⟨subscr⟩}") earlier in the line, takes its "{" back there.
 * A "}" with no such place closes a group of an earlier line ("\\fi}"), and stays as it is. Inserted braces are
 * tagged "x".
 */
function texBraces(merged: { text: string; tags: string; restored: number }): { text: string; tags: string; restored: number } {
  if (!merged.text.includes("\\") || !merged.text.includes("}")) return merged;
  let { text, tags, restored } = merged;
  let start = 0;
  while (start <= text.length) {
    const newline = text.indexOf("\n", start);
    const end = newline < 0 ? text.length : newline;
    const source = text.slice(start, end);
    // (UTF-16 units, as the tags and the offsets are)
    const line = source.split("");
    let inserted = 0;
    if (TEX_CODE.test(source) && !source.includes("<td")) {
      // open groups (where each opened) and the place a missing "{" would go
      const open: number[] = [];
      let place = -1;
      let brace = -1;
      const inserts: number[] = [];
      const def = /\\[egx]?def\\[A-Za-z@]+/.exec(source);
      let k = 0;
      while (k < line.length) {
        const c = line[k]!;
        if (c === "\\") {
          let j = k + 1;
          while (j < line.length && /[A-Za-z@]/.test(line[j]!)) j++;
          // a long control word ending in "f" right before another or a parameter: cmtt's "{" read as "f"
          // ("\\PassOptionsToPackagef\\CurrentOption}"; not \\def, \\edef, \\ifdef: short words)
          if (j - k > 6 && line[j - 1] === "f" && (line[j] === "\\" || line[j] === "#") && !open.length) brace = j - 1;
          k = Math.max(j, k + 2);
          continue;
        }
        if (c === "%") break;
        if (def && k === def.index + def[0].length) {
          // a \def's parameter text: #1#2… in order; the body's brace follows it
          let n = 1;
          while (line[k] === "#" && line[k + 1] === String(n)) {
            k += 2;
            n++;
          }
          // (a body that opens with a parameter or a control sequence; "#1#2!" is delimited by "!", "#1#{" by a brace)
          if (n > 1 && !open.length && ((line[k] === "#" && /\d/.test(line[k + 1] ?? "")) || line[k] === "\\")) place = k;
          if (n > 1) continue;
        }
        // (a meta-variable right after an argument, at depth zero: "]⟨subscr⟩}" is "]{⟨subscr⟩}", the "{" before the
        // angle bracket lost with it)
        if (c === "⟨" && !open.length && (line[k - 1] === "]" || line[k - 1] === "}")) place = k;
        if (c === "{" || c === "[") open.push(k);
        else if (c === "]" && line[open.at(-1) ?? -1] === "[") open.pop();
        else if (c === "}") {
          if (open.length) {
            // a group a "[" opened and a "}" closes was opened by a "{" the readers took for a bracket
            const at = open.pop()!;
            if (line[at] === "[") line[at] = "{";
            if (!open.length && (line[k + 1] === "\\" || line[k + 1] === "#")) place = k + 1;
          } else {
            // (the nearer of the two places)
            if (brace > place) line[brace] = "{";
            else if (place >= 0) inserts.push(place);
            [place, brace] = [-1, -1];
          }
        }
        k++;
      }
      for (const at of inserts.reverse()) line.splice(at, 0, "{");
      inserted = inserts.length;
      if (inserted || line.join("") !== source) {
        // (an inserted brace is tagged "x")
        const lineTags = tags.slice(start, end).split("");
        for (const at of inserts) lineTags.splice(at, 0, "x");
        text = text.slice(0, start) + line.join("") + text.slice(end);
        tags = tags.slice(0, start) + lineTags.join("") + tags.slice(end);
        restored += inserted;
      }
    }
    start = end + 1 + inserted;
  }
  return { text, tags, restored };
}
/** A line of TeX: a control word of two letters or more (texBraces). */
const TEX_CODE = /\\[A-Za-z@]{2,}/;

/** A page of TeX documentation: at least this many of its lines, as the recogniser read them, hold a control word. */
const TEX_PAGE_LINES = 3;

/** True when a page's recogniser readings show TeX code in TEX_PAGE_LINES lines or more (\\newcommand, \\norm). */
export function texPage(lines: readonly string[]): boolean {
  return lines.filter((l) => TEX_CODE.test(l)).length >= TEX_PAGE_LINES;
}

/** A bracket the recogniser read less sure than this around a meta-variable's word is no parenthesis (unsureAngles). */
const ANGLE_UNSURE = 0.9;

/** A word that may stand in angle brackets: small letters, with digits and spaces inside, 3 to 26 characters. */
const VARIABLE_WORD = "[a-z][a-z0-9 ]{1,24}?[a-z0-9]";

/**
 * The words of a line that the recogniser read between brackets ("(" or "<", then ")" or ">") of which at least one
 * it read unsure (under ANGLE_UNSURE): LaTeX documentation's ⟨meta-variables⟩, whose angle brackets neither reader
 * has. Parentheses read so on the dev pages of every kind were sure (0.92-1.0 for a word of three letters or more);
 * a meta-variable's brackets 0.49-0.99, most under 0.9. Only on a TeX page (texPage): a scan's noise makes any
 * bracket unsure.
 */
export function unsureAngles(text: string, peaks: ArrayLike<number>): Set<string> {
  const words = new Set<string>();
  const chars = Array.from(text);
  if (chars.length !== peaks.length) return words;
  for (const m of text.matchAll(new RegExp(`[(<](${VARIABLE_WORD})[)>]`, "g"))) {
    const open = Array.from(text.slice(0, m.index)).length;
    const close = open + Array.from(m[0]).length - 1;
    if (Math.min(peaks[open]!, peaks[close]!) < ANGLE_UNSURE) words.add(m[1]!);
  }
  return words;
}

/** A space after a control word or a closing bracket, before an opening bracket (texSpacing). */
const TEX_GAP = /(\\[A-Za-z@]+|[\]}]) (?=[[{])/g;

/**
 * A typewriter capital O read as the digit 0, inside a word (after two letters, or opening a control sequence, and
 * before a lower-case letter): "\Declare0ption", "\Pass0ptionsToClass", "\AtEnd0fClass", "\0ptionNotUsed". TeX's
 * control words hold letters only, and a digit between letters that way is no number; hex ("0x0a") has one letter
 * before it. The recogniser and the decoder both read cmtt's O so.
 */
function letterO(text: string): string {
  return text.includes("0") ? text.replace(/(?<=[\p{L}@]{2}|\\)0(?=\p{Ll})/gu, "O") : text;
}

/**
 * A small l read as the digit 1 where no digit stands: opening a control sequence before a small letter or an
 * underscore ("\\1stset", expl3's "\\1_alignedsets_box": TeX's control words hold letters only), and opening a file
 * extension after a word's dot ("magyar.1df", "magyar .1df"). Not between letters: "type1ec" is a package's name.
 * The recogniser and the decoder both read a serif or typewriter l so (dev bench: 5 lines, every one an l).
 */
function letterL(text: string): string {
  return text.includes("1") ? text.replace(/(?<=\\)1(?=[\p{Ll}_])|(?<=\p{L} ?\.)1(?=\p{Ll}{2})/gu, "l") : text;
}

/**
 * LaTeX documentation's meta-variables, set in angle brackets (\\norm*[⟨size⟩]{⟨arg⟩}), which neither reader has: the
 * recogniser reads each bracket as "<", ">", "(" or ")", and the decoder, whose tokenizer lacks them, copies it. In a
 * line of TeX where a word in lower case stands between one of "<", ">" and a parenthesis ("[(size>]"), that word and
 * every other between "<" and ">" is such a variable; a word between two parentheses ("(subscr)") may be one or a
 * parenthesis, and stays. (Also the better Markdown: "<arg>" is an HTML tag to a renderer.)
 */
function texAngles(text: string, html: boolean, unsure: ReadonlySet<string> = new Set()): string {
  // (in a table's line, "<" and ">" are tags: its text's are entities)
  if (html) return text;
  const variable = /([<(])([a-z][a-z0-9 ]{0,24}?[a-z0-9]|[a-z])([>)])/g;
  // (only where one is read half as a parenthesis: typewriter code has real "<" and ">", \\ref{<label>}, which the
  // recogniser reads as such both times)
  const mixed =
    TEX_CODE.test(text) &&
    /[<>]/.test(text) &&
    [...text.matchAll(variable)].some(([, open, , close]) => (open === "(") !== (close === ")"));
  if (!mixed && unsure.size === 0) return text;
  return text.replace(variable, (all, open: string, word: string, close: string) =>
    unsure.has(word) || (mixed && !(open === "(" && close === ")")) ? `⟨${word}⟩` : all,
  );
}

/**
 * The LaTeX logo, typeset with a small raised A (and TeX's lowered E), which the recogniser reads sure as "IATEX",
 * as "ATEX" with its L lost beside the A, or as "LTeX" with the A lost (and "ITEX", the L read as I as well); the
 * text layer, the truth and every other reader spell it "LATEX".
 * A word that begins there (not a control sequence "\ATEX...", nor inside a word) is the logo; inflections stay
 * ("IATEXowe" -> "LATEXowe"). Restored letters are tagged "x".
 */
const LATEX_LOGO = /(^|[^\p{L}\p{N}\\@])(?:([Il1|]?)A(?=TEX(?:$|[^\p{Lu}]))|[LI](?=T[eE]X(?:$|[^\p{Lu}])))/gu;

function typesetLogos(text: string, tags: string, restored: number): { text: string; tags: string; restored: number } {
  if (!text.includes("ATEX") && !/[LI]T[eE]X/.test(text)) return { text, tags, restored };
  let outText = "",
    outTags = "",
    from = 0;
  for (const m of text.matchAll(LATEX_LOGO)) {
    const at = m.index! + m[1]!.length;
    if (m[2] === undefined) {
      // (the A lost between the L and the T, "LTeX", the L read as I too, "ITEX": the A comes back, and TeX's lowered
      // E is the capital it is)
      outText += text.slice(from, at) + "LATEX";
      outTags += tags.slice(from, at + 1) + "x" + tags.slice(at + 1, at + 4);
      from = at + 4;
      restored++;
      continue;
    }
    outText += text.slice(from, at) + "LA";
    outTags += tags.slice(from, at) + "xx";
    from = at + m[2]!.length + 1;
    if (!m[2]) restored++;
  }
  return { text: outText + text.slice(from), tags: outTags + tags.slice(from), restored };
}

/**
 * The line's Markdown with the recogniser's sure characters written where the decoder strayed from them (see the
 * file's head). `decoded` is the decoder's Markdown for the line (with its leading separator), `evidence` the
 * recogniser's reading of the same line.
 */
export function mergeLine(
  decoded: string,
  evidence: LineEvidence,
  scripts: PageScripts,
  options: FaithfulOptions = FAITHFUL_DEFAULTS,
): string {
  return withoutRepeat(mergeLineTagged(decoded, evidence, scripts, options).text, evidence.text);
}

/** A word of letters written twice running, with one space between. */
const REPEATED_WORD = /(?<![\p{L}\p{N}])(\p{L}+) \1(?![\p{L}\p{N}])/gu;

/**
 * The merged line without the words the decoder wrote twice running ("с с", "кной кной", "путём путём") where the
 * recogniser read the line with fewer words than the merge holds and none twice running: the second of each pair
 * goes. A repeat the page has ("vous vous", "az az") is read twice by the recogniser too.
 */
function withoutRepeat(merged: string, reading: string): string {
  const once = merged.replace(REPEATED_WORD, "$1");
  if (once === merged) return merged;
  const theirs = reading.match(READ_WORD) ?? [];
  if (theirs.length === 0 || markdownWords(merged).length <= theirs.length || theirs.some((w, k) => k > 0 && w === theirs[k - 1]))
    return merged;
  return once;
}

// ---------------------------------------------------------------------------------------------------------------
// the engine's entry point

/** The per-line evidence a line view carries (src/vision/line-encoder.ts). */
export interface EvidenceView {
  text?: string;
  slotPeak?: Float32Array;
  slotGap?: Float32Array;
  slotDiacritic?: Uint8Array;
  slotDiacriticPeak?: Float32Array;
  slotHeight?: Float32Array;
  slotDepth?: Float32Array;
  /** the line's box, where it has a dot leader (traced: the bench's recogniser-alone column writes it too) */
  box?: { leader?: number };
}

const pageCache = new WeakMap<readonly EvidenceView[], ReturnType<typeof pageScripts>>();

/** The scripts of a page whose line views are `views`, decided once from the recogniser's evidence and kept. */
function scriptsOf(views: readonly EvidenceView[]): ReturnType<typeof pageScripts> {
  let scripts = pageCache.get(views);
  if (!scripts) {
    scripts = pageScripts(views.map((v) => ({ text: v.text ?? "", peaks: v.slotPeak ?? new Float32Array(0) })));
    pageCache.set(views, scripts);
  }
  return scripts;
}

/** The Cyrillic letter (small) each of the recogniser's look-alikes is read for, where one letter is (the decoder's fallback
 * on a Cyrillic page, fallbackReading): ONE_TWIN's, and the letters whose look-alike stands for one letter in its
 * case (B в, M м, u и, 6 б, r г, Φ ф), and n п (in Computer Modern л is read "JI"); the pairs read for one letter
 * (ы "bl", л "JI", ю "IO") go first. Ambiguous readings (J: д, л) stay. */
const FALLBACK_PAIRS: readonly [RegExp, string][] = [
  [/b[lI1i]/g, "ы"],
  [/JI/g, "л"],
  [/IO/g, "ю"],
];
const FALLBACK_LETTERS: Record<string, string> = {
  ...ONE_TWIN,
  A: "а",
  B: "в",
  b: "ь",
  E: "е",
  M: "м",
  O: "о",
  n: "п",
  u: "и",
  U: "и",
  N: "и",
  r: "г",
  "3": "з",
  "6": "б",
  "0": "о",
  Φ: "ф",
};

/**
 * The recogniser's reading of line `index` as the decoder's fallback writes it (a line the decoder ran away in,
 * src/engines/model/decode.ts): on a Cyrillic page, each word with no sure Latin-only letter (LATIN_ONLY_WORD) in
 * small Cyrillic letters for its look-alikes where they stand for one letter (FALLBACK_LETTERS); the merge then sets
 * their case by their glyphs' heights. Elsewhere, and for other words, the reading as it is ("He B cOCToAHUn" ->
 * "не в состоанип"). `part`: a part of the line (a long line read in parts, vision/lines.ts lineParts), read in its place.
 */
export function fallbackReading(views: readonly EvidenceView[], index: number, part?: EvidenceView): string | undefined {
  const view = part ?? views[index]!;
  if (view.text === undefined) return undefined;
  const scripts = scriptsOf(views);
  if (!scripts.cyrillic || scripts.serbian || view.slotPeak === undefined) return view.text;
  const chars = Array.from(view.text);
  if (chars.length !== view.slotPeak.length) return view.text;
  const confident = FAITHFUL_DEFAULTS.confident;
  let at = 0;
  return view.text
    .split(/(\s+)/)
    .map((word) => {
      const start = at;
      at += Array.from(word).length;
      // (a word of a small letter at least, a digit among its letters, or a single letter: "B", "K", "C" are в, к, с,
      // "3TN" эти; "OK", "TCP" stay)
      const letters = Array.from(word);
      const cyrillicLike = /[a-z]/.test(word) || /[A-Z][0346]|[0346][A-Z]/.test(word) || (letters.length === 1 && FALLBACK_LETTERS[word]);
      if (!/[a-zA-Z]/.test(word) || !cyrillicLike) return word;
      // (the l of "bl", ы, is none)
      if (
        letters.some((c, q) => LATIN_ONLY_WORD.test(c) && view.slotPeak![start + q]! >= confident && !(c === "l" && letters[q - 1] === "b"))
      )
        return word;
      let out = word;
      for (const [pair, letter] of FALLBACK_PAIRS) out = out.replace(pair, letter);
      return Array.from(out, (c) => FALLBACK_LETTERS[c] ?? c).join("");
    })
    .join("");
}

/** A page decides its scripts with at least this many sure recogniser letters (pageScripts: fewer decide nothing). */
const DECIDING_LETTERS = 20;
/** Latin-only shapes that keep a line of a Cyrillic page free (LATIN_ONLY_WORD without w: ш is read as W, sure, as in
 * "MaCWTa6" for "масштаб"; dev bench: 4 more lines banned, cy-audacity-p14 -15 errors, no line worse). */
const LATIN_ONLY_LINE = /[dfghjlqsvzDFGJLQSVZ]/;

/**
 * The script the decoder may not write in line `index` of a page, decided before the line is decoded (the engine
 * bans its letters): Latin on a Cyrillic page, in a line with words read as Cyrillic look-alikes and none with a
 * sure Latin-only letter ("ICHyE KinbKa ... Ma6yTb, xOyeTe:", which the decoder copies as "xOqeTe" for "хочете").
 * Not Cyrillic on a Latin page: there the merge writes the look-alike of a Cyrillic letter the decoder wrote
 * (latinFor: "T4а" -> "T4a"), which beat the decoder's next Latin choice ("T4y") on the dev bench (+8 errors on
 * two pages, none better). A page with few sure letters bans nothing.
 */
export function bannedScript(
  views: readonly EvidenceView[],
  index: number,
  options: FaithfulOptions = FAITHFUL_DEFAULTS,
): Script | undefined {
  const view = views[index];
  if (view?.text === undefined || view.slotPeak === undefined) return undefined;
  const scripts = scriptsOf(views);
  if (scripts.letters < DECIDING_LETTERS || !(scripts.cyrillic || scripts.mixed)) return undefined;
  const peaks = view.slotPeak;
  if (Array.from(view.text).length !== peaks.length) return undefined;
  // the line's words: none with a sure Latin-only letter, and most of those of 3 or more characters read as
  // Cyrillic look-alikes ("terminatorx" is neither, and stays free; so does "mcp-nnariHN", half of it Latin)
  let looks = 0,
    words = 0;
  for (const m of view.text.matchAll(/[^\s(),.;:[\]{}"«»《》<>/_-]+/g)) {
    const at = Array.from(view.text.slice(0, m.index)).length;
    const word = Array.from(m[0]);
    const wordPeaks = peaks.subarray(at, at + word.length);
    if (word.some((c, i) => wordPeaks[i]! >= options.confident && LATIN_ONLY_LINE.test(fold(c)))) return undefined;
    if (word.length < 3) continue;
    words++;
    if (cyrillicLook(word.map(fold).join(""), wordPeaks, options.confident)) looks++;
  }
  return looks > 0 && looks * 2 > words ? "latin" : undefined;
}

/** Where OCR_FAITHFUL_TRACE asks for it, every line's evidence, decoder Markdown and merge as JSON Lines (for scripts/faithful-eval.mjs). */
const TRACE = process.env.OCR_FAITHFUL_TRACE;

/**
 * The Markdown of line `index` of a page whose line views are `views`: the decoder's `decoded` merged with the
 * recogniser's evidence (the page's scripts are decided on its first line and kept for the page); `part`: a part of
 * the line (vision/lines.ts lineParts) and its place among the line's parts, whose evidence the decoder's text of it
 * is merged with (traced as a record of its own, `part` its place).
 */
export function faithfulLine(
  decoded: string,
  views: readonly EvidenceView[],
  index: number,
  page?: { source: string; pageNumber: number },
  part?: { evidence: EvidenceView; index: number },
): string {
  const view = part?.evidence ?? views[index]!;
  if (view.text === undefined || view.slotPeak === undefined) return decoded;
  const scripts = scriptsOf(views);
  const merged = mergeLine(
    decoded,
    {
      text: view.text,
      peaks: view.slotPeak,
      gaps: view.slotGap,
      diacritics: view.slotDiacritic,
      diacriticPeaks: view.slotDiacriticPeak,
      heights: view.slotHeight,
      depths: view.slotDepth,
      previous: views[index - 1]?.text,
    },
    scripts,
  );
  if (TRACE)
    appendFileSync(
      TRACE,
      JSON.stringify({
        source: page?.source,
        page: page?.pageNumber,
        line: index,
        ...(part ? { part: part.index } : {}),
        text: view.text,
        peaks: Array.from(view.slotPeak, (p) => Math.round(p * 1000) / 1000),
        gaps: view.slotGap && Array.from(view.slotGap, (g) => Math.round(g * 10) / 10),
        diacritics: view.slotDiacritic && Array.from(view.slotDiacritic),
        diacriticPeaks: view.slotDiacriticPeak && Array.from(view.slotDiacriticPeak, (p) => Math.round(p * 1000) / 1000),
        heights: view.slotHeight && Array.from(view.slotHeight, (h) => (Number.isNaN(h) ? null : Math.round(h * 100) / 100)),
        depths: view.slotDepth && Array.from(view.slotDepth, (h) => (Number.isNaN(h) ? null : Math.round(h * 100) / 100)),
        ...(view.box?.leader ? { leader: view.box.leader } : {}),
        decoded,
        merged,
      }) + "\n",
    );
  return merged;
}

/**
 * A word hyphenated across two lines is one word. The decoder joins it, dropping the line's final hyphen as it was
 * trained to, but the next line still opens with the space that continues a paragraph ("in" + " clude"); or it keeps
 * the hyphen ("gener-" + " ated"). Where the recogniser read the previous line ending in a letter and a hyphen, the
 * decoder's previous line ends in that letter (with or without the hyphen), and this line opens with one space and a
 * lower-case letter, the hyphen and the space go: "include", "generated". Not before a conjunction: "sub-" + " and
 * superscripts" is a suspended hyphen. A compound broken at its own hyphen ("Frequently-" + " used") loses it: one
 * character, where keeping a typesetting hyphen costs two, and typesetting hyphens are the common case.
 * The other way, where the recogniser read the previous line ending in a letter with no hyphen after it, and the
 * decoder opened this line with a letter right after its previous line's (it runs two words together over a line
 * break now and then: "трёхмерного" + "изображения"), a space parts them, in the scripts that part words so.
 * Returns the previous line's Markdown and this line's.
 */
export function joinHyphenated(previousMarkdown: string, previousText: string | undefined, markdown: string): [string, string] {
  const unchanged: [string, string] = [previousMarkdown, markdown];
  if (previousText === undefined) return unchanged;
  const read = previousText.trimEnd();
  if (SPACED_LETTER_END.test(read) && SPACED_LETTER_END.test(previousMarkdown) && SPACED_LETTER_START.test(markdown))
    return [previousMarkdown, ` ${markdown}`];
  if (!/\p{L}-$/u.test(read)) return unchanged;
  const next = /^ (\p{Ll}\p{L}*)/u.exec(markdown);
  if (!next) return unchanged;
  if (/\p{L}$/u.test(previousMarkdown)) return [previousMarkdown, markdown.slice(1)];
  if (/\p{L}-$/u.test(previousMarkdown) && !SUSPENDED_BEFORE.has(next[1]!)) return [previousMarkdown.slice(0, -1), markdown.slice(1)];
  return unchanged;
}

/** A letter of a script that parts its words with spaces, ending a line's text or opening it (joinHyphenated). */
const SPACED_LETTER_END = /[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}]$/u;
const SPACED_LETTER_START = /^[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}]/u;

/** Words after which a line-final hyphen is a suspended one ("sub- and superscripts", "Ein- und Ausgabe"). */
const SUSPENDED_BEFORE = new Set([
  "and",
  "or",
  "nor",
  "to",
  "und",
  "oder",
  "bis",
  "et",
  "ou",
  "y",
  "e",
  "o",
  "u",
  "i",
  "a",
  "и",
  "или",
  "й",
  "та",
  "або",
  "і",
]);

/**
 * The Markdown of a line set vertically (vision/vertical.ts: a form's document number stamped up its margin) without
 * the heading mark the decoder opens it with: laid out upright for the decoder, the line is taller than the page's
 * body lines and stands alone, which the decoder writes as a heading ("## 82250337"); a stamp is no heading.
 */
export function verticalLine(markdown: string): string {
  return markdown.replace(/^(\s*)#{1,6}[ \t]+/, "$1");
}

/** An apostrophe inside a word (l'occasion, don't), straight. */
const STRAIGHT_INSIDE = /(?<=\p{L})'(?=\p{L})/gu;
/** …and typographic (l’occasion). */
const CURLY_INSIDE = /(?<=\p{L})’(?=\p{L})/u;

/**
 * A page's apostrophes are of one kind. Typeset text (TeX, word processors) sets an apostrophe inside a word as ’:
 * 76 of the dev truth's 77 are, the other on a typewritten form. The recogniser reads both as "'" (sure),
 * and the decoder writes either, one word "l’article", the next "d'une", on the same page. Where the page's lines
 * write ’ inside a word at least once, every straight one inside a word becomes ’ too, outside code: a fenced block's
 * lines, TeX's control words ("\printpr'") and inline code keep theirs. A page that never writes ’ (a typewriter's
 * straight apostrophe) keeps its lines as they are.
 */
export function typographicApostrophes(lines: readonly string[]): string[] {
  if (!lines.some((l) => CURLY_INSIDE.test(l))) return [...lines];
  return outsideCode(lines, (line) => line.replace(STRAIGHT_INSIDE, "’"));
}

/**
 * A closing “ written where the page shows ”. The recogniser has no curly quotes and the decoder writes “ for both
 * ends now and then ("These “Nimbus“ fonts", "the “.bib“ suffix").
 * A “ that closes a quote opened by “ (after a letter or a mark, before a space, a mark or the line's end) is ”.
 * A quote opened by „ closes with the mark the page closes such quotes with, or its language does (lowQuoteCloser:
 * “ in German, Czech, Serbian, ”  in Polish, Hungarian), whatever the decoder wrote there, a straight " included
 * (Serbian's „%f" for „%f“); anything in code is left. The open quote is carried from line to line, in the page's
 * order.
 */
export function closingQuotes(lines: readonly string[]): string[] {
  const close = lowQuoteCloser(lines);
  let open: string | undefined;
  return outsideCode(lines, (line) => {
    const chars = Array.from(line);
    chars.forEach((q, i) => {
      if (q !== "“" && q !== "„" && q !== "”" && !(q === '"' && open === "„")) return;
      const before = chars[i - 1],
        after = chars[i + 1];
      const closing = before !== undefined && !/\s/.test(before) && (after === undefined || /[\s.,;:!?)\]–—-]/.test(after));
      const opening = (before === undefined || /[\s(\[]/.test(before)) && after !== undefined && !/\s/.test(after);
      if (q === "„") open = q;
      else if (closing) {
        if (q === "“" && open === "“") chars[i] = "”";
        else if (open === "„" && close !== undefined) chars[i] = close;
        open = undefined;
      } else if (opening && q === "“") open = q;
    });
    return chars.join("");
  });
}

/** Languages that close a quote opened by „ with “ (German, Czech, Slovak, Serbian, Bulgarian, Russian, Ukrainian),
 * and those that close it with ” (Polish, Hungarian, Romanian, Dutch). */
const LOW_QUOTE_CLOSERS: Record<string, string> = {
  de: "“",
  cs: "“",
  sk: "“",
  sr: "“",
  bg: "“",
  ru: "“",
  uk: "“",
  pl: "”",
  hu: "”",
  ro: "”",
  nl: "”",
};

/**
 * The mark that closes a quote opened by „ on the page: its language's (LOW_QUOTE_CLOSERS: its Cyrillic words'
 * language, else its function words'), else the curly quote the page's own such quotes close with where they close
 * with one kind; undefined where neither tells.
 */
function lowQuoteCloser(lines: readonly string[]): string | undefined {
  const text = lines.join(" ");
  // (a page without „ needs none: its languages are not read for it)
  if (!text.includes("„")) return undefined;
  const lang = cyrillicLanguage(text) ?? pageLanguage(text);
  if (lang !== undefined && LOW_QUOTE_CLOSERS[lang] !== undefined) return LOW_QUOTE_CLOSERS[lang];
  const seen = new Set(Array.from(text.matchAll(/„[^„“”"\n]{1,80}?([“”])/gu), (m) => m[1]!));
  return seen.size === 1 ? [...seen][0] : undefined;
}
const LONE_AT = /(^|[\s(])@(?= (?:1[89]\d\d|20\d\d|\p{Lu}\p{Ll}))/u;

/**
 * A copyright sign read as "@". The recogniser's alphabet lacks "©" and reads the "@" it looks like, and the decoder
 * (whose vocabulary has it) writes that too ("KOLUKISA @ 2022", "2018/11/20, @ Robert Sebille"). An "@" standing alone, a space on both
 * sides, before a year or a capitalised name, is "©": an address or a handle joins its "@" to a word. Not in code.
 */
export function copyrightSigns(lines: readonly string[]): string[] {
  if (!lines.some((l) => LONE_AT.test(l))) return [...lines];
  return outsideCode(lines, (line) => line.replace(new RegExp(LONE_AT, "gu"), "$1©"));
}

/** An address with a space beside its "@" or the "@" doubled: a local part, then a domain of dotted labels ending in a
 * top-level domain of letters. */
const SPACED_ADDRESS = /(^|[^\w.+-])([\w+-]+(?:\.[\w+-]+)*)(?: ?@@+ ?| @ ?|@ )([a-z\d-]+(?:\.[a-z\d-]+)*\.([a-z]{2,}))(?![\w-])/giu;
/** SPACED_ADDRESS without its global flag, to test a line with (a global one keeps its place between lines). */
const SPACED_ADDRESS_TEST = new RegExp(SPACED_ADDRESS.source, "iu");
/** Top-level domains an address in code must end in: a country's two letters or one of these. */
const CODE_DOMAINS = new Set(["com", "org", "net", "edu", "gov", "info", "io"]);

/**
 * E-mail addresses read with a space beside the "@" or the "@" twice: the recogniser sets a space after a wide glyph
 * ("rolf@ meine-uni.de", "andy @ meine-uni.de") and the decoder doubles it ("clara@@ meine-uni.de"). An address never
 * holds a space, so the parts join where the right part is a domain (dotted labels ending in letters: "a @ b" and a
 * year after an "@", which copyrightSigns reads, are no address). In code (where the decoder also fences a table's rows)
 * the domain must end in a country's two letters or a common top-level domain ("x @ self.weight" is a product).
 */
export function emailAddresses(lines: readonly string[]): string[] {
  if (!lines.some((l) => SPACED_ADDRESS_TEST.test(l))) return [...lines];
  const join = (code: boolean) => (line: string) =>
    line.replace(SPACED_ADDRESS, (all, before: string, local: string, domain: string, top: string) =>
      !code || top.length === 2 || CODE_DOMAINS.has(top.toLowerCase()) ? `${before}${local}@${domain}` : all,
    );
  return outsideCode(outsideCode(lines, join(false)), join(true), true);
}

/** `lines` (a page's, in order) with `rewrite` applied to those outside code: not in a fenced block or on its fences,
 * and holding no TeX control word or inline code. Fences count as the page's Markdown will keep them
 * (balancedFences): a stray one the decoder closes a block with when none is open ("```\n\n## 3 TERMINOLOGY" as a
 * page's first line) opens no block. `inside`: to the pieces inside fenced blocks of code instead (of lines holding no
 * TeX control word or inline code either). */
function outsideCode(lines: readonly string[], rewrite: (line: string, k: number) => string, inside = false): string[] {
  // each line's pieces between fences, and the fenced block each lies in (-1: outside any), its fences read as
  // layout/page.ts balancedFences reads them (a heading closes an open block, a stray closing fence opens none)
  const pieces: { text: string; block: number }[][] = [];
  let open = false,
    blocks = 0;
  for (const line of lines) {
    const read = fencesOf(line, open);
    let inside = open && !read.headingCloses;
    const parts: { text: string; block: number }[] = [];
    let at = 0;
    for (const f of read.fences) {
      parts.push(
        { text: line.slice(at, f.start), block: inside ? blocks - 1 : -1 },
        { text: line.slice(f.start, f.end), block: FENCE_ITSELF },
      );
      at = f.end;
      if (f.does === "close") inside = false;
      else if (f.does === "open") [inside, blocks] = [true, blocks + 1];
    }
    parts.push({ text: line.slice(at), block: inside ? blocks - 1 : -1 });
    pieces.push(parts);
    open = read.open;
  }
  const blockText = (b: number) => pieces.flatMap((parts) => parts.filter((p) => p.block === b).map((p) => p.text)).join("\n");
  const prose = Array.from({ length: blocks }, (_, b) => proseBlock(blockText(b)));
  return pieces.map((parts, k) => {
    // (a line with inline code or a TeX control word is code throughout)
    const unfenced = parts
      .filter((p) => p.block !== FENCE_ITSELF)
      .map((p) => p.text)
      .join("");
    if (/`(?!``)/.test(unfenced) || TEX_CODE.test(lines[k]!)) return lines[k]!;
    const outside = (p: { block: number }) => p.block === -1 || (p.block >= 0 && prose[p.block]);
    return parts.map((p) => ((inside ? p.block >= 0 && !outside(p) : outside(p)) ? rewrite(p.text, k) : p.text)).join("");
  });
}

/** The block a fence itself stands for in outsideCode's pieces: never rewritten. */
const FENCE_ITSELF = -2;

/** Marks of code: a fenced block that shows none (beyond URLs) in more than CODE_MARKS of its characters, and whose
 * words are words of letters or numbers (PROSE_WORDS of them at least), is prose the decoder fenced: a man page's indented
 * paragraph, its section heading ("```\nİLGİLİ BELGELER\n```"). */
const CODE_MARK = /[{}[\]<>=;\\$_|*#^~]/g;
const CODE_MARKS = 0.01;
const PROSE_WORDS = 0.8;
/** A word of letters, or a number, with the punctuation prose sets around it. */
const PROSE_WORD = /^[("'“‘«„]?(?:\p{L}+(?:[-’']\p{L}+)*|\p{N}+(?:[.,]\p{N}+)*)[)"'”’».,:;!?]*$/u;

/** Whether a fenced block's text (fences included) reads as prose (CODE_MARK). */
function proseBlock(text: string): boolean {
  const body = text.replace(/```\S*/g, " ").replace(/<?\bhttps?:\/\/\S+/g, " ");
  const words = body.split(/\s+/).filter((w) => w.length > 0);
  const solid = body.replace(/\s+/g, "").length;
  const marks = body.match(CODE_MARK)?.length ?? 0;
  return words.length >= 2 && marks <= CODE_MARKS * solid && words.filter((w) => PROSE_WORD.test(w)).length >= PROSE_WORDS * words.length;
}

/**
 * Per language, accented letters its alphabet lacks, as the decoder writes them for its own: the same vowel with
 * the mark the language does set (Italian's verb "è" as "ê", Hungarian's "á" as "ä" or "â" and "ő" as "ô",
 * Spanish "ó" as "ò", French "î" as "í": "boíte"). Lower case; capitals follow. A language absent here, or a letter absent from its row, is left
 * as written (German quotes French words). A Czech "ů" is written "ü", "ù" or "û" ("souborü", "dokumentù": 11 of
 * the 14 "ů" missed on the language probe's Czech help pages); a German name's "ü" on a Czech page ("Müller") is
 * written "ů" so, the rarer letter there. German keeps the French marks it quotes (é, è, à, ô); its "ö" written "ó"
 * ("Móchten", "Móglichkeiten" on the language probe's German pages in LaTeX faces) is its own.
 */
const LANGUAGE_LETTERS: Record<string, Record<string, string>> = {
  it: { ê: "è", ë: "è", â: "à", ä: "à", ô: "ò", ö: "ò", û: "ù", ü: "ù" },
  de: { á: "ä", ó: "ö", ò: "ö", ú: "ü", ù: "ü" },
  fr: { á: "à", í: "î", ì: "î", ó: "ô", ò: "ô", ú: "û" },
  hu: { â: "á", ä: "á", à: "á", ã: "á", ê: "é", ë: "é", è: "é", î: "í", ï: "í", ì: "í", ô: "ő", õ: "ő", ò: "ó", û: "ű", ù: "ú" },
  es: { à: "á", â: "á", ä: "á", è: "é", ê: "é", ë: "é", ì: "í", î: "í", ï: "í", ò: "ó", ô: "ó", ö: "ó", ù: "ú", û: "ú" },
  pt: { ä: "ã", ë: "ê", è: "é", ì: "í", î: "í", ï: "í", ò: "ó", ö: "õ", ù: "ú", û: "ú" },
  pl: { ò: "ó", ô: "ó", ö: "ó" },
  cs: { à: "á", â: "á", ä: "á", è: "é", ê: "ě", ë: "é", ì: "í", î: "í", ï: "í", ò: "ó", ô: "ó", ö: "ó", ù: "ů", ü: "ů", û: "ů" },
};
const LANGUAGE_PATTERNS = new Map(
  Object.entries(LANGUAGE_LETTERS).map(([lang, row]) => {
    const map = new Map<string, string>();
    for (const [from, to] of Object.entries(row)) {
      map.set(from, to);
      map.set(from.toUpperCase(), to.toUpperCase());
    }
    return [lang, { map, pattern: new RegExp(`[${[...map.keys()].join("")}]`, "g") }];
  }),
);

/**
 * A page's letters of its language's alphabet. Where the page's function words name a language of LANGUAGE_LETTERS,
 * the accented letters that language never writes become the ones it writes for them, outside code (dev pages
 * la-layaureo-p4, hd-toptesi-p12: Italian's "è" written "ê" five times each, the truth never); where the bundle has
 * a word list of that language (`wordLists`: Portuguese, Spanish), a word the list lacks takes the marks of the one
 * word of it spelled so but for them (markedWords). Where its Cyrillic words' letters name a language the bundle has
 * a word list of (vision/language.ts cyrillicLanguage: Russian, Ukrainian, Serbian), a Cyrillic word the list lacks
 * is the word of it that the recogniser's reading of the word spells through its look-alikes, where line k's words
 * pair with `readings[k]`'s (words.ts nearestReading: the decoder's words two letters off, "библиографи" over
 * "6n6nnorpaΦnn"), else the one word of it that a misread letter makes of it (words.ts nearestWord; where several
 * are, the one whose letter the decoder ranked next to its own, `alternatives[k]`: by offset in `decoded[k]`, the
 * letters it ranked next to each token of it), and the rest of the passes below, the Cyrillic words of fenced code as
 * well; then the same once more among the page's words as they were repaired.
 */
export function languageLetters(
  lines: readonly string[],
  wordLists?: (lang: string) => WordList | undefined,
  readings?: readonly (string | undefined)[],
  decoded?: readonly (string | undefined)[],
  alternatives?: readonly (ReadonlyMap<number, string> | undefined)[],
): string[] {
  const text = lines.join(" ");
  const latin = latinLanguageLetters(lines, text, wordLists);
  const cyrillic = cyrillicLanguage(text);
  const words = cyrillic === undefined ? undefined : wordLists?.(cyrillic);
  if (!words) return latin;
  // the page's own words of the language: they choose among the words one letter from a misread one (nearestWord) and
  // stand for one two letters from it (pageForm)
  const page = pageWords(text, words);
  const joined = wordsOverLineBreaks(latin, words, page);
  // a Cyrillic word as the list, the recogniser's reading of it (`read`) and the letters the decoder ranked next to its
  // own (`pairs`: its words in its line, with their offsets) write it
  const cyrillicWord = (word: string, at: number, k: number, read?: Map<number, string>, pairs?: ReturnType<typeof pairedWords>) => {
    const own = ownLetterWord(word, words);
    if (own !== word) return own;
    const theirs = pairs?.get(at);
    const near = alternatives?.[k];
    const nearly = theirs?.word === word && near ? Array.from({ length: word.length + 1 }, (_, i) => near.get(theirs.at + i)) : undefined;
    return firstCapitalOnly(listWord(word, words, page, read?.get(at), nearly), words);
  };
  const decoderPairs = (line: string, k: number) =>
    alternatives?.[k]?.size && decoded?.[k] !== undefined ? pairedWords(line, withoutMarkup(decoded[k]!)) : undefined;
  const prose = outsideCode(joined, (line, k) => {
    if (decoded?.[k] !== undefined)
      line = readings?.[k] === "" ? unreadWords(line, decoded[k]!, words) : withDecoderWords(line, decoded[k]!, words);
    if (readings?.[k] !== undefined) line = withoutFalseStarts(line, readings[k]!, words);
    const read = readings?.[k] === undefined ? undefined : readWords(line, readings[k]!);
    // (the decoder's own words, with their offsets in its text: the letters it ranked next to theirs choose among the
    // words one letter from a misread one, nearestWord)
    const pairs = decoderPairs(line, k);
    const split = splitParts(joined, k);
    const decoderWords = decoded?.[k] === undefined ? undefined : new Set(decoded[k]!.match(/\p{L}+/gu));
    return line.replace(PAGE_WORD, (word, at: number) => {
      if (split(line, word, at)) return word;
      // (a Latin word the recogniser read with a capital of a letter whose capital is its small letter's shape, where
      // the decoder wrote it small: "meSg", "bZmOre" for "mesg", "bzmore")
      if (SHAPE_CAPITALS.test(word) && decoderWords?.has(word.toLowerCase())) return word.toLowerCase();
      // (a word of Latin letters the decoder copied from the look-alikes, among Cyrillic words: a Latin name among Latin
      // words, "Alf Tonny Bätz", spells "Тодду" so; each pass leaves a word it is not for as it is)
      const latin = lookAlikeWord(word, words);
      if (latin !== word && !latinBeside(line, at, word.length)) return latin;
      // (a key's or a paper size's digit 3 read as the look-alike з after a Latin capital: "Fз" for F3)
      if (KEY_THREE.test(word)) return `${word[0]}3`;
      return cyrillicWord(word, at, k, read, pairs);
    });
  });
  // …the Cyrillic words of fenced code as well (a comment, a message, prose the decoder fenced around a command:
  // "двоїными квадратными скобками" beside "ldbracket <?> rdbracket"), with the letters the decoder ranked next; code's
  // Latin words stay as they are
  const code = outsideCode(
    prose,
    (line, k) => {
      const pairs = decoderPairs(line, k);
      const split = splitParts(prose, k);
      return line.replace(PAGE_WORD, (word, at: number) =>
        split(line, word, at) || !CYRILLIC_ONLY.test(word) ? word : cyrillicWord(word, at, k, undefined, pairs),
      );
    },
    true,
  );
  // (Ukrainian's conjunction і never stands before a mark: an і there is the Latin letter, a variable or a key, "рівним
  // i.", "i<пробіл>", which the decoder wrote as the conjunction)
  const first = cyrillic === "uk" ? outsideCode(code, (line) => line.replace(LATIN_I_BEFORE_MARK, "i")) : code;
  // …and once more among the page's words as that pass wrote them: a word the page misreads everywhere it is written
  // ("ПОВЕЋАЊЕ" as "ПОВЕЋЬЊЕ", "ПОВЕГЊЕ", "ПОВЕЋИЕ") is a page word once one of its misreadings is repaired
  const again = pageWords(first.join(" "), words);
  if ([...again.keys()].every((key) => page.has(key))) return first;
  return outsideCode(first, (line, k) => {
    const split = splitParts(first, k);
    return line.replace(PAGE_WORD, (word, at: number) => {
      if (split(line, word, at)) return word;
      const near = nearestWord(word, words, again);
      return near === word ? pageForm(word, words, again) : near;
    });
  });
}

/**
 * A word the language's list lacks as the word passes write it: the word the recogniser's `reading` of it spells
 * (nearestReading), else the one word one letter off (nearestWord; where several are and the page does not choose,
 * the one the decoder nearly wrote, `nearly`: the letters it ranked next to each of the word's), else the word its
 * decoder's slips make of it (repairedWord), else the page's word two letters off (pageForm), else the language's
 * common word two letters off (commonFarWord); `word` itself where none is.
 */
function listWord(word: string, words: WordList, page: PageWords, reading?: string, nearly?: readonly (string | undefined)[]): string {
  const near = (reading === undefined ? undefined : nearestReading(word, reading, words)) ?? nearestWord(word, words, page, nearly);
  if (near !== word) return near;
  const repaired = repairedWord(word, words);
  if (repaired !== word) return repaired;
  const formed = pageForm(word, words, page);
  if (formed !== word) return formed;
  return commonFarWord(word, words);
}

/**
 * Each Cyrillic word written in two parts over a line break (a line ending in a letter, the next opening with one: a
 * word hyphenated in print, joined by joinHyphenated) that the language's list lacks as a whole, as the word passes
 * write it whole (nearestWord, repairedWord, pageForm: "бреобразован" + "ные" is "преобразован" + "ные"), the second
 * part keeping its letters' count; where the word comes out as two words, or the parts are in code, they stay.
 */
function wordsOverLineBreaks(lines: readonly string[], words: WordList, page: PageWords): string[] {
  const out = [...lines];
  for (let k = 1; k < out.length; k++) {
    const head = /(?<![\p{L}\p{N}_\\/'’ʼ-])\p{Script=Cyrillic}+$/u.exec(out[k - 1]!);
    const tail = /^\p{Script=Cyrillic}+(?![\p{L}\p{N}_/'’ʼ-])/u.exec(out[k]!);
    if (!head || !tail || /`/.test(out[k - 1]!) || /`/.test(out[k]!)) continue;
    const word = head[0] + tail[0];
    if (words.has(word)) continue;
    const whole = listWord(word, words, page);
    if (whole === word || !/^\p{Script=Cyrillic}+$/u.test(whole) || whole.length <= tail[0].length) continue;
    const cut = whole.length - tail[0].length;
    out[k - 1] = out[k - 1]!.slice(0, head.index) + whole.slice(0, cut);
    out[k] = whole.slice(cut) + out[k]!.slice(tail[0].length);
  }
  return out;
}

/** A Latin capital and a Cyrillic з: a function key or a paper size whose 3 was read as its look-alike. */
const KEY_THREE = /^[A-Z][зЗ]$/u;

/** A Latin word opening with a small letter, its capitals only those shaped as their small letters are. */
const SHAPE_CAPITALS = /^\p{Ll}(?=[\p{Ll}CKOSUVWXZ]*[CKOSUVWXZ])[\p{Ll}CKOSUVWXZ]+$/u;

/** A Cyrillic word of the list written with two capitals or more before its small letters ("ДОступ", "УЗлы",
 * "ЩЕЛкните": capitals the decoder read in TeX's faces), with its first capital only; any other word as it is (an
 * abbreviation with an ending, "СЕЛинукса", is no word of the list). */
function firstCapitalOnly(word: string, words: WordList): string {
  return MIXED_CAPITALS.test(word) && words.has(word) ? word[0]! + word.slice(1).toLowerCase() : word;
}
const MIXED_CAPITALS = /^(?=\p{Script=Cyrillic}+$)\p{Lu}{2,}\p{Ll}{2,}$/u;

/** Whether a word at `at` of line k of `lines` is a part of a word split between two lines, one ending in a letter and
 * the next opening with one (no separator of its own: a long line read in parts): the line's first word after such a
 * line, or its last before one. */
function splitParts(lines: readonly string[], k: number): (line: string, word: string, at: number) => boolean {
  const after = k > 0 && /\p{L}$/u.test(lines[k - 1]!);
  const before = /^\p{L}/u.test(lines[k + 1] ?? "");
  return (line, word, at) => (after && at === 0) || (before && at + word.length === line.length);
}

/** Whether the `length` characters at `at` of a line's Markdown (its markup left out) stand beside words, none of them
 * Cyrillic: the word before and the word after, where the line has them. */
function latinBeside(line: string, at: number, length: number): boolean {
  const plain = withoutMarkup(line);
  const beside = [plain.slice(0, at).match(/\p{L}+(?=[^\p{L}]*$)/u)?.[0], plain.slice(at + length).match(/\p{L}+/u)?.[0]].filter(
    (w) => w !== undefined,
  );
  return beside.length > 0 && !beside.some((w) => CYRILLIC_ONLY.test(w));
}

/** The words of the language a page's text writes, of VOCABULARY_LETTERS letters or more (languageLetters). */
function pageWords(text: string, words: WordList): PageWords {
  return new Map(
    (text.match(/\p{Script=Cyrillic}+/gu) ?? [])
      .filter((w) => w.length >= VOCABULARY_LETTERS && words.has(w))
      .map((w) => [wordKey(w), w.toLowerCase()] as const),
  );
}

/** A page's words of this many letters or more are its vocabulary (languageLetters). */
const VOCABULARY_LETTERS = 4;

/** A lone Cyrillic і right before a mark no conjunction stands before. */
const LATIN_I_BEFORE_MARK = /(?<![\p{L}\p{N}_'’-])і(?=[,.;:!?<>)\]])/gu;

/** A word of Cyrillic letters only. */
const CYRILLIC_ONLY = /^\p{Script=Cyrillic}+$/u;

/**
 * A line without the words the decoder began and began again ("значню значков", "прежим правки" for "режим правки"):
 * a Cyrillic word the language lacks, one space before a word it has that opens with the same two letters, where the
 * recogniser read the line with fewer words than the line holds; as many go as the line has words over the reading's.
 */
function withoutFalseStarts(line: string, reading: string, words: WordList): string {
  const theirs = reading.match(READ_WORD) ?? [];
  const plain = withoutMarkup(line);
  const mine = markdownWords(line);
  let over = mine.length - theirs.length;
  if (theirs.length === 0 || over <= 0) return line;
  let out = line;
  for (let k = mine.length - 2; k >= 0 && over > 0; k--) {
    const [a, b] = [mine[k]!, mine[k + 1]!];
    const [first, second] = [a[0], b[0]];
    if (!CYRILLIC_ONLY.test(first) || !CYRILLIC_ONLY.test(second) || words.has(first) || !words.has(second)) continue;
    if (first.slice(0, 2).toLowerCase() !== second.slice(0, 2).toLowerCase() || plain.slice(a.index + first.length, b.index) !== " ")
      continue;
    out = out.slice(0, a.index) + out.slice(b.index);
    over--;
  }
  return out;
}

/**
 * A line with the decoder's own words back where the merge left letters of them out and so made a word the language
 * lacks of a word it has ("ыполняется", "табицы", "пордок" for the decoder's "выполняется", "таблицы", "порядок": a
 * Cyrillic letter the decoder wrote between two it read side by side, where the recogniser's look-alikes of TeX's
 * faces run together, "BIOJHAeTCA", "Ta6JHH", "nopAoK"). The line's words pair with the decoder's (`decoded`, its
 * Markdown for the line) as readWords pairs them with a reading; the word taken keeps the case of the letter it opens
 * with where the line's word opens with the same letter, and a word of capitals stays in capitals.
 */
function withDecoderWords(line: string, decoded: string, words: WordList): string {
  const own = readWords(line, withoutMarkup(decoded));
  if (!own) return line;
  let out = line;
  for (const m of markdownWords(line).reverse()) {
    const [mine, theirs] = [m[0], own.get(m.index)];
    if (theirs === undefined || !CYRILLIC_ONLY.test(mine) || !CYRILLIC_ONLY.test(theirs) || words.has(mine) || !words.has(theirs)) continue;
    if (!leftOut(mine.toLowerCase(), theirs.toLowerCase())) continue;
    const upper = mine.length > 1 && mine === mine.toUpperCase();
    const first = mine[0]!.toLowerCase() === theirs[0]!.toLowerCase() ? mine[0]! : theirs[0]!;
    const word = upper ? theirs.toUpperCase() : first + theirs.slice(1);
    out = out.slice(0, m.index) + word + out.slice(m.index + mine.length);
  }
  return out;
}

/**
 * A line the recogniser read nothing in, with the decoder's words where each is a Cyrillic word of the language
 * ("для", "и" alone in a table's cell, which the recogniser reads as no symbol in TeX's faces): the merge keeps only
 * the structure of such a line (mergeLineTagged, `empty`: a rule or a picture has no letters to write), and the
 * decoder's words go back where the line is that structure.
 */
function unreadWords(line: string, decoded: string, words: WordList): string {
  const own = markdownWords(decoded);
  if (own.length === 0 || markdownWords(line).length > 0 || !own.every(([w]) => CYRILLIC_ONLY.test(w) && words.has(w))) return line;
  // (the decoder's line without its words is the merge's line: its letters are all the merge left out)
  let bare = decoded;
  for (const m of own.reverse()) bare = bare.slice(0, m.index) + bare.slice(m.index + m[0].length);
  return bare === line ? decoded : line;
}

/** `part` is `whole` with one letter or more left out (and none changed). */
function leftOut(part: string, whole: string): boolean {
  if (part.length >= whole.length) return false;
  let j = 0;
  for (const ch of whole) if (j < part.length && part[j] === ch) j++;
  return j === part.length;
}

/** Markup of a line's Markdown (tags, entities), which holds no words of the page. */
const MARKUP = /<[^>]*>|&[a-z]+;/g;
/** A word of the page or of the recogniser's reading, as the two are paired: letters and digits, and the marks the
 * recogniser reads for a Cyrillic letter's parts inside a word (".JI" for л, "*" for ж, "%" for я: words.ts READS). */
const READ_WORD = /[\p{L}\p{N}](?:[\p{L}\p{N}.*%>]*[\p{L}\p{N}])?/gu;

/** A line's Markdown with its markup blanked, each character where it stood. */
function withoutMarkup(line: string): string {
  return line.replace(MARKUP, (m) => " ".repeat(m.length));
}

/** The words of a line's Markdown, markup left out, each with its offset in the line. */
function markdownWords(line: string): RegExpExecArray[] {
  return [...withoutMarkup(line).matchAll(READ_WORD)];
}

/**
 * The recogniser's reading of each word of a line's Markdown (by the word's offset): where the two hold as many words
 * (letters and digits, markup left out), one by one; else through the characters' alignment (align), each word
 * half of whose letters or more are aligned with their look-alikes in one word of the reading where no other word's
 * half are (a space one of them missed, a word
 * the decoder split, leave the words around them unpaired). A word the reading hyphenates at the line's end has none
 * (its reading is half of it). Each with its offset in the reading.
 */
function pairedWords(line: string, reading: string): Map<number, { word: string; at: number }> | undefined {
  const plain = withoutMarkup(line);
  const mine = markdownWords(line);
  const theirs = [...reading.matchAll(READ_WORD)];
  if (mine.length === 0 || theirs.length === 0) return undefined;
  const hyphenated = /-\s*$/.test(reading);
  const read = new Map<number, { word: string; at: number }>();
  const pair = (i: number, t: number) => {
    const word = theirs[t]![0];
    if (!(hyphenated && word === theirs.at(-1)![0] && i === mine.length - 1)) read.set(mine[i]!.index, { word, at: theirs[t]!.index });
  };
  if (mine.length === theirs.length) {
    mine.forEach((_, i) => pair(i, i));
    return read;
  }
  // (each character of the reading: the word of it it lies in)
  const wordAt = new Int32Array(reading.length).fill(-1);
  theirs.forEach((m, t) => wordAt.fill(t, m.index, m.index + m[0].length));
  const charOf = new Int32Array(plain.length).fill(-1);
  // (a character aligned with one it does not look like is a substitution the alignment made to span a gap, no
  // evidence of where the word was read)
  for (const step of align(plain.split(""), reading.split("")))
    if (step.d !== undefined && step.r !== undefined && sameBase(plain[step.d]!, reading[step.r]!)) charOf[step.d] = step.r;
  // (per word, how many of its letters lie in each word of the reading)
  const hits = mine.map((m) => {
    const count = new Map<number, number>();
    for (let c = m.index; c < m.index + m[0].length; c++) {
      const t = charOf[c]! >= 0 ? wordAt[charOf[c]!]! : -1;
      if (t >= 0) count.set(t, (count.get(t) ?? 0) + 1);
    }
    return count;
  });
  // a word is read where half its letters or more lie in one word of the reading, in which no other word has half
  const holds = (i: number, t: number) => 2 * (hits[i]!.get(t) ?? 0) >= mine[i]![0].length;
  mine.forEach((_, i) => {
    const t = [...hits[i]!.keys()].find((k) => holds(i, k));
    if (t !== undefined && !mine.some((__, j) => j !== i && holds(j, t))) pair(i, t);
  });
  return read;
}

/** pairedWords' words alone: the reading's word paired with each word of the line, by the line word's offset. */
function readWords(line: string, reading: string): Map<number, string> | undefined {
  const paired = pairedWords(line, reading);
  return paired && new Map([...paired].map(([at, { word }]) => [at, word]));
}

/** languageLetters for the page's Latin-script language (its function words' in `text`, the lines joined), and its
 * word list's marks where the bundle has one (`wordLists`: markedWords). */
function latinLanguageLetters(lines: readonly string[], text: string, wordLists?: (lang: string) => WordList | undefined): string[] {
  const lang = pageLanguage(text);
  if (lang === "tr") return outsideCode(lines, turkishLetters);
  const row = lang === undefined ? undefined : LANGUAGE_PATTERNS.get(lang);
  const words = lang === undefined ? undefined : LANGUAGE_WORDS[lang];
  const list = lang === undefined ? listLanguage(text, wordLists) : wordLists?.(lang);
  if (!row && !words && !list) return [...lines];
  const letters = (line: string) => (row ? line.replace(row.pattern, (ch) => row.map.get(ch)!) : line);
  // (a line read in parts: a part that opens with a letter continues the word the part before it ends with)
  const marked = (line: string, k: number) => (list ? markedWords(line, list, splitParts(lines, k)) : line);
  return outsideCode(lines, (line, k) => marked((words ?? ((l: string) => l))(letters(line)), k));
}

/** The Latin-script languages whose word lists spell a page's words with their marks (markedWords). */
const MARKED_LANGUAGES = ["es", "pt"];
/** A page no language's function words name is the language whose list holds this share of its words or more… */
const LIST_SHARE = 0.6;
/** …and this many times the share another's holds. */
const LIST_LEAD = 1.5;

/**
 * The list of the MARKED_LANGUAGES language that holds most of the page's Latin words (three letters or more, their
 * marks put back as the list spells them: the page's marks are what is in doubt), where it holds LIST_SHARE of them and
 * LIST_LEAD times another's share: a Portuguese page that names Spanish's function words too ("una", "con", "es"),
 * 16 to 11, is no language's by them.
 */
function listLanguage(text: string, wordLists?: (lang: string) => WordList | undefined): WordList | undefined {
  const words = (text.match(/(?<![\p{L}\p{N}_\\/-])\p{Script=Latin}{3,}(?![\p{L}\p{N}_/-])/gu) ?? []).slice(0, 400);
  if (!wordLists || words.length < 20) return undefined;
  const shares = MARKED_LANGUAGES.flatMap((lang) => {
    const list = wordLists(lang);
    if (!list) return [];
    const held = words.filter((w) => list.has(w) || list.spelledAlike(w, bareLetter, 1).length > 0).length;
    return [{ list, share: held / words.length }];
  }).sort((a, b) => b.share - a.share);
  const [first, second] = shares;
  return first && first.share >= LIST_SHARE && first.share >= LIST_LEAD * (second?.share ?? 0) ? first.list : undefined;
}

/** A letter without its marks (é e, ç c, ñ n, ã a). */
function bareLetter(ch: string): string {
  return ch.normalize("NFD").replace(/\p{M}/gu, "");
}

/** TeX's logos as the recogniser reads them ("LATEX", "TEX", "XETEX"), which texLogos writes: no word of a
 * language (Spanish's "látex"). */
const TEX_LOGO_WORD = /T[Ee]X$/;

/** A word is spelled with its language's marks from MARKED_LETTERS letters on (shorter words are more often
 * another language's, or two of the language's: "e" and "é", "as" and "às"). */
const MARKED_LETTERS = 3;

/**
 * A line's Latin words of MARKED_LETTERS letters or more that the language's list (`words`) lacks, each as the one
 * word of the list spelled with the same letters but for their marks ("funcao", "Extensäo", "definicôes", "diseno"
 * for "função", "Extensão", "definições", "diseño": the recogniser reads no mark, and the decoder and the diacritics
 * model miss some or write another); a word two of whose spellings are the list's, or none, stays, and so does a
 * part of a word split between two lines (`split`: splitParts). Capitals stay where they were.
 */
function markedWords(line: string, words: WordList, split: ReturnType<typeof splitParts>): string {
  return line.replace(PAGE_WORD, (word, at: number) => {
    // (a part of a word the line shares with the line before or after it: "docu" of "docu" "mentação")
    if (split(line, word, at)) return word;
    if (word.length < MARKED_LETTERS || !/^\p{Script=Latin}+$/u.test(word) || TEX_LOGO_WORD.test(word) || words.has(word)) return word;
    const alike = words.spelledAlike(word, bareLetter);
    if (alike.length !== 1) return word;
    const [form] = alike as [string];
    return Array.from(form, (ch, i) => (word[i] !== word[i]!.toLowerCase() ? ch.toUpperCase() : ch)).join("");
  });
}

/** One of Polish's commonest words, "są", with the mark the recogniser cannot read and the diacritics model read
 * unsure ("sa" is no Polish word; sc-polski-p5 wrote it once). Too short for POLISH_MARKED's list. */
const POLISH_BARE = /(?<![\p{L}\p{N}_\\-])sa(?![\p{L}\p{N}_-])/gu;
/** A word as a page writes it: letters, not inside a word of code or a path, nor a part of one of them (the
 * "траница" of "Веб-страница", which a letter put in made "сстраница"; the "явився" of Ukrainian's "з'явився"). */
const PAGE_WORD = /(?<![\p{L}\p{N}_\\/'’ʼ-])\p{L}+(?![\p{L}\p{N}_/'’ʼ-])/gu;
let polishMarked: Map<string, string> | undefined;

/**
 * A Polish line's words that the language writes only with ą or ę, where they came out bare (the recogniser reads
 * neither mark, and the diacritics model misses them often: "moga", "wiecej", "miedzy" for "mogą", "więcej",
 * "między"): polish-marked.ts lists them (scripts/corpus/marked-words.mjs over manpages-pl), and "są"; and the words
 * with ł the decoder wrote with a t or an l for it, as it reads a typewriter ł ("wedtug", "stowa", "cate"), where the
 * language does not write that spelling. A word keeps its capitals.
 */
function polishMarks(line: string): string {
  // (a word with ł under its spellings with t and with l for it: "wedtug", "stowa" for "według", "słowa")
  polishMarked ??= new Map([
    ...POLISH_STROKED.split(" ").flatMap((w) => [[w.replace(/ł/g, "t"), w] as const, [w.replace(/ł/g, "l"), w] as const]),
    ...POLISH_MARKED.split(" ").map((w) => [w.replace(/ą/g, "a").replace(/ę/g, "e"), w] as const),
  ]);
  const marked = polishMarked;
  return line.replace(POLISH_BARE, "są").replace(PAGE_WORD, (word) => markedForm(word, marked));
}

let germanMarked: Map<string, string> | undefined;

/**
 * A German line's words that the language writes only with ä, ö or ü, where they came out bare (the recogniser
 * reads none of the marks, and the diacritics model misses them in small type: "fur", "konnen", "ausgewahlten"):
 * german-marked.ts lists them (scripts/corpus/marked-words.mjs --lang de over manpages-de; not "wurde", "drucken",
 * words of their own). A word keeps its capitals.
 */
function germanMarks(line: string): string {
  germanMarked ??= new Map(GERMAN_MARKED.split(" ").map((w) => [w.replace(/[äöü]/g, (c) => ({ ä: "a", ö: "o", ü: "u" })[c]!), w] as const));
  return line.replace(PAGE_WORD, (word) => markedForm(word, germanMarked!));
}

/** `word` in the spelling `marked` lists for its bare letters, its capitals kept; else `word`. */
function markedForm(word: string, marked: ReadonlyMap<string, string>): string {
  const form = marked.get(word.toLowerCase());
  if (!form) return word;
  if (word === word.toUpperCase() && word.length > 1) return form.toUpperCase();
  return word[0] === word[0]!.toUpperCase() ? form[0]!.toUpperCase() + form.slice(1) : form;
}

/** Per language, its words' spelling after its letters (LANGUAGE_LETTERS): what a word's letters around say. */
const LANGUAGE_WORDS: Record<string, (line: string) => string> = {
  de: germanMarks,
  pl: polishMarks,
  pt: portugueseNasals,
};

/**
 * A Portuguese line's nasal diphthongs at a word's end, which the language writes with a tilde only: "ão" and "ões".
 * The recogniser reads no tilde and the decoder writes another accent there ("combinaçâo", "padráo", "seräo",
 * "tabulaçôes"); an a or o with any accent before the ending is the tilde's, and so is a bare one after a consonant
 * ("funcao", "nao", "estao": no Portuguese word ends in a consonant and a bare "ao"; a loan that does, "Bilbao", is
 * written wrong), after "c" a bare "oes" ("opcoes"); a c before the tilde's vowel is ç. The preposition "ao" and
 * "aos" stay.
 */
function portugueseNasals(line: string): string {
  return line.replace(/\p{L}+/gu, (word) =>
    word
      .replace(/(?<=\p{L})[âáäà](?=os?$)/u, "ã")
      .replace(/(?<=[^aeiouáéíóúâêôãõàü\P{L}])a(?=os?$)/iu, (a) => (a === "a" ? "ã" : "Ã"))
      .replace(/(?<=\p{L})[ôóöò](?=es?$)/u, "õ")
      .replace(/(?<=[cç])o(?=es$)/u, "õ")
      .replace(/(?<=\p{L})[cC](?=[ãõÃÕ])/u, (c) => (c === "c" ? "ç" : "Ç")),
  );
}

/** Turkish's dotless i read as a one or a capital I after two small letters ("dosyay1", "katsayI" for "dosyayı", "katsayı"). */
const TURKISH_DOTLESS = /(?<=\p{Ll}\p{Ll})[1I](?!\d)/gu;

/**
 * A Turkish line's i's: the dotless one the recogniser reads as a digit one or a capital I after small letters, and
 * the capital dotted İ, which it reads as a small i (the decoder as í) inside a word of three capitals or more ("HiÇBIR GARANTi"
 * for "HİÇBİR GARANTİ").
 */
function turkishLetters(line: string): string {
  return line.replace(TURKISH_DOTLESS, "ı").replace(/\p{L}+/gu, (word) => {
    const rest = word.replace(/[ií]/g, "");
    if (rest.length >= 3 && rest.length < word.length && /^\p{Lu}+$/u.test(rest)) return word.replace(/[ií]/g, "İ");
    return DOTLESS_AS_L.test(word) ? word.slice(0, -1) + "ı" : word;
  });
}

/**
 * A small word's last ı read as an l: after a consonant, where the word's last vowel is a or ı ("tuşlarl", "adl",
 * "Sayfasl" for "tuşları", "adı", "Sayfası": the recogniser reads the dotless i's short stem as an l). A Turkish
 * word ends in a consonant and l only as a loan or an acronym, whose vowels are not a or ı ("perl", "html").
 */
const DOTLESS_AS_L = /[aıâ][bcçdfgğhjkmnprsştvyz]*[bcçdfgğhjkmnprsştvyz]l$/u;

/** The TeX logo read with its lowered E small, as a word (inflected or not: "TeXu", not "\\TeX", "MiKTeX", "TeXLive"). */
const TEX_LOGO = /(?<![\p{L}\p{N}\\@-])TeX(?![\p{Lu}])/gu;

/**
 * A page's TeX logos as the page sets them: T, a lowered capital E, X. The recogniser reads the lowered E as "e" and
 * the decoder copies it; the text layer, the truth and Tesseract spell it "TEX" (the dev truth: 48 "TEX" words, and
 * "TeX" only in "TeXLive", "MiKTeX" and code). Outside code (fenced blocks, TeX control words, inline code).
 */
export function texLogos(lines: readonly string[]): string[] {
  if (!lines.some((l) => l.includes("TeX"))) return [...lines];
  return outsideCode(lines, (line) => line.replace(TEX_LOGO, "TEX"));
}
