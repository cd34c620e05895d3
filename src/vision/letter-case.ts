// The case of a letter whose capital is its small letter set larger (c o s v w x z), read from the glyph's height.
//
// The recogniser tells these letters' case by size alone, and in a typewriter face, where every letter has the same
// width, it often misses: "LibreOffice", "BefehlStrg", "\SX@pos" read "Libreoffice", "Befehlstrg", "\Sx@pos". The
// line's crop shows the answer: the body of such a letter reaches the line's x-height (its small letters a e m n r u)
// or its capitals' height (A B D E …, or the ascenders b d h k l). The decoder, which sees the glyph too, gets the
// say where the height is clear; where it is certain, the height decides.
import { median } from "../layout/xycut.js";
import type { LineCrop } from "./line-crop.js";
import { slotPeaks, type LineUnit } from "./lines.js";

/** Letters whose case the recogniser reads from size alone. */
const SIZE_CASED = /^[cosvwxzCOSVWXZ]$/;
/** Small letters that stand on the baseline and reach the x-height: their bodies' tops give the line's x-height. */
const SMALL = /^[aemnru]$/;
/** Capitals whose small letter has another shape: their tops give the height of the capitals; and the ascenders,
 * which reach it or above. */
const CAPITAL = /^[ABDEFGHKLMNPRT]$/;
const ASCENDER = /^[bdhkl]$/;
/** The fewest tops of either kind a line needs before its letters' case is read from it. */
const MIN_REFERENCES = 2;
/** The fewest crop rows between the x-height and the capitals' height (3.5 in a typewriter face, whose x-height is
 * tall, on a 48-row crop of a line at 150 DPI). */
const MIN_SEPARATION = 3;
/** How far from its slot's centre a letter's glyph may begin, and how wide it may be, in slots' pitches. */
const REACH = 0.6;
const WIDEST = 1.5;
/** Letters whose top may overhang the next letter's. */
const OVERHANGS = /^[fFPTVWY]$/;
/** A letter's top farther than this share of the separation beyond either height was not measured on it. */
const OUTSIDE = 0.6;
/** A letter's top this near the other height is that height's letter, whatever the decoder wrote (the decoder misses
 * a typewriter face's case as the recogniser does: "sSH", "cMIS", "Befehlstrg" in both). */
const CERTAIN = 0.15;
/** Where the line's tall letters are ascenders (too few capitals), the heights at which a small letter's top is
 * decisively and certainly a capital's, as a share of the way from the x-height to the ascenders: a typewriter face
 * sets its capitals well under its ascenders (DejaVu Sans Mono: a W's top 0.65 of the way up), a small letter's
 * top stays at the x-height. */
const BY_ASCENDERS: readonly [number, number] = [0.5, 0.6];
/** A dot above a glyph: at most this share of its body's height tall, ending within this share of it above. */
const DOT_HEIGHT = 0.35;
const DOT_REACH = 0.6;
/** The peak a doubted letter's slot keeps: under any merge's `confident`. */
const DOUBTED = 0.5;
/** The share of a line's reference tops that must lie near their median. */
const STEADY = 0.8;
/** How far a small i's body top may lie from the line's x-height, as a share of it, for its dot to be read. */
const I_TOP = 0.15;
/** The least x-height, in crop rows, a line's glyph heights are measured against (slotHeights). */
const MIN_X_HEIGHT = 8;
/** How far a line's small letters' tops and feet may lie from theirs, as a share of its x-height (slotHeights). */
const STEADY_HEIGHT = 0.1;
/** A letter's top must lie within this share of the separation from one height to count as that height. */
const DECISIVE = 0.3;

/** A crop's ink: its darkest and lightest values (first channel), and the threshold halfway between. */
interface Ink {
  dark: number;
  light: number;
  threshold: number;
}

/** The ink of a crop, or undefined where it shows too little contrast to tell ink from paper. */
function inkOf(crop: LineCrop): Ink | undefined {
  let dark = 255,
    light = 0;
  for (let i = 0; i < crop.width * crop.height; i++) {
    const v = crop.pixels[i * crop.channels]!;
    if (v < dark) dark = v;
    if (v > light) light = v;
  }
  return light - dark < 64 ? undefined : { dark, light, threshold: (dark + light) / 2 };
}

/** Whether row r of a crop holds ink in columns `[left, right)`. */
function rowInked(crop: LineCrop, threshold: number, r: number, left: number, right: number): boolean {
  for (let x = left; x < right; x++) if (crop.pixels[(r * crop.width + x) * crop.channels]! < threshold) return true;
  return false;
}

/** The tallest run of rows `[top, bottom)` within rows `[from, to)` that hold ink in columns `[left, right)`. */
function tallestInkedRows(
  crop: LineCrop,
  threshold: number,
  [from, to]: readonly [number, number],
  left: number,
  right: number,
): [number, number] | undefined {
  let best = 0,
    at = 0,
    run = 0;
  for (let r = from; r <= to; r++) {
    if (r < to && rowInked(crop, threshold, r, left, right)) run++;
    else {
      if (run > best) [best, at] = [run, r - run];
      run = 0;
    }
  }
  return best ? [at, at + best] : undefined;
}

/** Rows `[top, bottom)` of a crop: the line's band, the tallest run of rows holding ink (a neighbouring line's
 * descenders or ascenders at the crop's edges lie apart from it). */
function inkBand(crop: LineCrop, { threshold }: Ink): [number, number] | undefined {
  return tallestInkedRows(crop, threshold, [0, crop.height], 0, crop.width);
}

/** A glyph in a crop: its columns `[left, right)` and its body's rows `[top, bottom)`. */
interface GlyphBody {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/**
 * The glyph of slot j, whose centre in the crop's columns is `centres[j]` (a recogniser slot's centre may stand a few
 * columns off its glyph): the run of inked columns (within the line's band) that holds the centre or lies nearest it
 * within REACH slot pitches, and its body, the tallest run of rows holding its ink (an accent or a dot above is a run
 * apart). Undefined where no glyph is near, the run of columns is wider than WIDEST pitches or runs into a
 * neighbour's centre (letters touching).
 */
function slotGlyph(
  crop: LineCrop,
  band: readonly [number, number],
  { threshold }: Ink,
  centres: Float32Array,
  j: number,
): GlyphBody | undefined {
  const centre = centres[j]!;
  const gap = Math.min(j > 0 ? centre - centres[j - 1]! : Infinity, j + 1 < centres.length ? centres[j + 1]! - centre : Infinity);
  const pitch = Number.isFinite(gap) ? gap : crop.height / 2;
  const [top, bottom] = band;
  const inked = (x: number) => {
    if (x < 0 || x >= crop.width) return false;
    for (let r = top; r < bottom; r++) if (crop.pixels[(r * crop.width + x) * crop.channels]! < threshold) return true;
    return false;
  };
  const c = Math.round(centre);
  const reach = Math.round(REACH * pitch);
  let seed: number | undefined;
  for (let d = 0; d <= reach && seed === undefined; d++) seed = inked(c - d) ? c - d : inked(c + d) ? c + d : undefined;
  if (seed === undefined) return undefined;
  let left = seed,
    right = seed + 1;
  while (inked(left - 1)) left--;
  while (inked(right)) right++;
  // (a glyph that runs into a neighbour's centre touches it: an f's hook over the o after it)
  if (right - left > Math.round(WIDEST * pitch) || left <= (centres[j - 1] ?? -Infinity) || right > (centres[j + 1] ?? Infinity))
    return undefined;
  const body = tallestInkedRows(crop, threshold, band, left, right);
  return body && { left, right, top: body[0], bottom: body[1] };
}

/**
 * The top of a glyph's body in rows, to a fraction of a row: its edge lies within its first row by how grey that row
 * and the one above are (a crop's cap height and x-height lie 3-4 rows apart in a typewriter face at 150 DPI).
 */
function bodyTop(crop: LineCrop, ink: Ink, body: GlyphBody): number {
  // the darkest of the glyph's columns in a row, 0 (paper) to 1 (ink)
  const darkness = (r: number) => {
    if (r < 0) return 0;
    let v = 255;
    for (let x = body.left; x < body.right; x++) v = Math.min(v, crop.pixels[(r * crop.width + x) * crop.channels]!);
    return Math.min(1, Math.max(0, (ink.light - v) / (ink.light - ink.dark)));
  };
  return body.top + 1 - darkness(body.top) - darkness(body.top - 1);
}

/**
 * Whether a glyph shows a dot above its body: over its columns, after at least one row of paper above the body, a
 * run of ink no taller than DOT_HEIGHT of the body's height that ends within DOT_REACH of it, with paper above.
 */
function dotAbove(crop: LineCrop, { threshold }: Ink, body: GlyphBody): boolean {
  const height = body.bottom - body.top;
  const inkAt = (r: number) => rowInked(crop, threshold, r, body.left, body.right);
  const highest = Math.max(0, Math.floor(body.top - DOT_REACH * height));
  let r = body.top - 1;
  if (r < highest || inkAt(r)) return false;
  while (r >= highest && !inkAt(r)) r--;
  if (r < highest) return false;
  const dotBottom = r;
  while (r >= highest && inkAt(r)) r--;
  return r >= 0 && !inkAt(r) && dotBottom - r <= DOT_HEIGHT * height;
}

/**
 * The slots of a unit where the recogniser read a capital I whose glyph shows a dot above it (a Turkish İ: the
 * diacritics model reads that dot as none, 40 of 46 on the probe's Turkish pages). `columns` are the unit's slot
 * centres in its crop's columns.
 */
export function dottedCapitalI(u: LineUnit, crop: LineCrop, columns: Float32Array): number[] {
  const chars = Array.from(u.text);
  if (!chars.includes("I") || chars.length !== columns.length) return [];
  const ink = inkOf(crop);
  const band = ink && inkBand(crop, ink);
  if (!ink || !band) return [];
  const found: number[] = [];
  chars.forEach((ch, j) => {
    if (ch !== "I") return;
    const body = slotGlyph(crop, band, ink, columns, j);
    if (body && dotAbove(crop, ink, body)) found.push(j);
  });
  return found;
}

/**
 * Per slot of each unit, the height of its glyph's body over the line's x-height, from the baseline (1 at the
 * x-height; a capital stands 1.33-1.5 times as tall), and how far it reaches below the baseline in x-heights (a
 * descender's: ф, not Ф), or NaN where it was not measured: the glyph touches a
 * neighbour, or the line shows fewer than MIN_REFERENCES small letters (a e m n r u) standing steadily at one height
 * and on one baseline. Kept in `heights` and `depths` (in place) for the merge, which reads the case of the decoder's Cyrillic
 * letters from it (engines/model/faithful.ts): the recogniser reads their look-alikes, "M" for м and М alike.
 */
export function slotHeights(units: LineUnit[], crops: readonly LineCrop[], columns: readonly Float32Array[]): void {
  units.forEach((u, k) => {
    const chars = Array.from(u.text);
    const centres = columns[k];
    const crop = crops[k];
    if (!centres || !crop || chars.length !== centres.length) return;
    const ink = inkOf(crop);
    const band = ink && inkBand(crop, ink);
    if (!ink || !band) return;
    const bodies = chars.map((_, j) => slotGlyph(crop, band, ink, centres, j));
    const small = chars.flatMap((ch, j) => (SMALL.test(ch) && bodies[j] ? [j] : []));
    if (small.length < MIN_REFERENCES) return;
    const tops = small.map((j) => bodyTop(crop, ink, bodies[j]!));
    const bottoms = small.map((j) => bodies[j]!.bottom);
    const xTop = median(tops),
      base = median(bottoms);
    const xHeight = base - xTop;
    // (the small letters' tops and feet within a tenth of the x-height of theirs: no italic, no mixed sizes)
    const near = (v: number[], at: number) => v.filter((t) => Math.abs(t - at) <= STEADY_HEIGHT * xHeight).length >= STEADY * v.length;
    if (xHeight < MIN_X_HEIGHT || !near(tops, xTop) || !near(bottoms, base)) return;
    u.heights = Float32Array.from(bodies, (b) => (b ? (base - bodyTop(crop, ink, b)) / xHeight : Number.NaN));
    u.depths = Float32Array.from(bodies, (b) => (b ? (b.bottom - base) / xHeight : Number.NaN));
  });
}

/**
 * The slots of a unit where the recogniser read a small i, by what its glyph shows above its body: "dotted" where a
 * dot stands apart above it, "dotless" where no ink stands above it at all (Turkish's ı: the diacritics model read 8
 * of the probe's Turkish man pages' ı's dotted at 0.97 or more, "ayrilir", "yazilimdir"). Only where the body's top
 * lies within I_TOP of the line's x-height (a e m n r u, MIN_REFERENCES of them): a dot joined to its stem makes a
 * taller body, which tells nothing. `columns` are the unit's slot centres in its crop's columns.
 */
export function smallIDots(u: LineUnit, crop: LineCrop, columns: Float32Array): Map<number, "dotted" | "dotless"> {
  const found = new Map<number, "dotted" | "dotless">();
  const chars = Array.from(u.text);
  if (!chars.includes("i") || chars.length !== columns.length) return found;
  const ink = inkOf(crop);
  const band = ink && inkBand(crop, ink);
  if (!ink || !band) return found;
  const bodies = chars.map((ch, j) => (ch === "i" || SMALL.test(ch) ? slotGlyph(crop, band, ink, columns, j) : undefined));
  const small = chars.flatMap((ch, j) => (SMALL.test(ch) && bodies[j] ? [bodies[j]!] : []));
  if (small.length < MIN_REFERENCES) return found;
  const xTop = median(small.map((b) => b.top)),
    xHeight = median(small.map((b) => b.bottom)) - xTop;
  if (xHeight < MIN_X_HEIGHT) return found;
  chars.forEach((ch, j) => {
    const body = bodies[j];
    if (ch !== "i" || !body || Math.abs(body.top - xTop) > I_TOP * xHeight) return;
    if (dotAbove(crop, ink, body)) found.set(j, "dotted");
    else if (![...Array(body.top - band[0]).keys()].some((r) => rowInked(crop, ink.threshold, band[0] + r, body.left, body.right)))
      found.set(j, "dotless");
  });
  return found;
}

/** A line's two heights: its small letters' x-height and its tall letters' height, as crop rows of their tops, with a
 * slot's glyph top (`top`) to measure letters against them. */
interface TwoHeights {
  top: (j: number) => number | undefined;
  xTop: number;
  /** rows from the tall letters' tops down to the x-height */
  separation: number;
  /** whether the tall letters are the line's capitals (else its ascenders, with what capitals it has) */
  byCapitals: boolean;
}

/**
 * The x-height of a line (its small letters a e m n r u) and the height of its tall letters, where MIN_REFERENCES of
 * each stand steadily (STEADY of them within DECISIVE of the separation) MIN_SEPARATION rows apart or more: else
 * undefined (italic, mixed sizes, a formula, too few letters). The tall letters are its capitals, or, with too few
 * of them, capitals and ascenders together (`"capitals"`: a face's ascenders may stand above its capitals), or its
 * ascenders alone (`"ascenders"`: where its capitals are what is in doubt).
 */
function twoHeights(
  crop: LineCrop,
  chars: readonly string[],
  centres: Float32Array,
  tallBy: "capitals" | "ascenders",
): TwoHeights | undefined {
  const ink = inkOf(crop);
  const band = ink && inkBand(crop, ink);
  if (!ink || !band) return undefined;
  const top = (j: number) => {
    const body = slotGlyph(crop, band, ink, centres, j);
    return body && bodyTop(crop, ink, body);
  };
  const small: number[] = [],
    capitals: number[] = [],
    ascenders: number[] = [];
  chars.forEach((ch, j) => {
    const kind = SMALL.test(ch) ? small : tallBy === "capitals" && CAPITAL.test(ch) ? capitals : ASCENDER.test(ch) ? ascenders : undefined;
    const t = kind && top(j);
    if (t !== undefined) kind!.push(t);
  });
  const byCapitals = tallBy === "capitals" && capitals.length >= MIN_REFERENCES;
  const tall = byCapitals ? capitals : [...capitals, ...ascenders];
  if (small.length < MIN_REFERENCES || tall.length < MIN_REFERENCES) return undefined;
  const xTop = median(small),
    tallTop = median(tall);
  const separation = xTop - tallTop;
  const steady = (tops: number[], at: number) =>
    tops.filter((t) => Math.abs(t - at) <= DECISIVE * separation).length >= STEADY * tops.length;
  if (separation < MIN_SEPARATION || !steady(small, xTop) || !steady(tall, tallTop)) return undefined;
  return { top, xTop, separation, byCapitals };
}

/** Whether the word holding character j (its run of letters and digits) is o's and digits only, two or more. */
function zeros(chars: readonly string[], j: number): boolean {
  let a = j,
    b = j + 1;
  while (a > 0 && /[\p{L}\p{N}]/u.test(chars[a - 1]!)) a--;
  while (b < chars.length && /[\p{L}\p{N}]/u.test(chars[b]!)) b++;
  return b - a >= 2 && chars.slice(a, b).every((c) => /[oO0-9]/.test(c));
}

/**
 * Reads the case of each unit's size-cased letters from their height in the line's crop (in place). Where a letter's
 * top is decisively at the other case's height, its slot's peak is lowered to at most DOUBTED (in `peaks`, the
 * evidence; the decoder's slot features keep the recogniser's), so that the merge (engines/model/faithful.ts) takes
 * the decoder's letter there ("LibreOffice" where the recogniser read "Libreoffice"), and where the decoder wrote the
 * recogniser's letter, it stays; where the top is certainly there, the letter in `text` changes case. Only where the
 * line shows both heights steadily apart, no diacritic was read on the letter and a letter stands beside it.
 * `columns[k]` are unit k's slot centres in its crop's columns. Returns the number of letters doubted or changed.
 */
export function caseBySize(units: LineUnit[], crops: readonly LineCrop[], columns: readonly Float32Array[]): number {
  let doubted = 0;
  units.forEach((u, k) => {
    const chars = Array.from(u.text);
    const centres = columns[k];
    const crop = crops[k];
    if (!centres || !crop || chars.length !== centres.length || !chars.some((c) => SIZE_CASED.test(c))) return;
    const heights = twoHeights(crop, chars, centres, "capitals");
    if (!heights) return;
    const { top, xTop, separation, byCapitals } = heights;
    let changed = false;
    chars.forEach((ch, j) => {
      // (a letter beside a digit may be a digit read as one: "S66"; a key's letter stands alone, "Ctrl+S.")
      if (!SIZE_CASED.test(ch) || (u.diacritics?.[j] ?? 0) !== 0) return;
      if (/\p{N}/u.test(chars[j - 1] ?? "") || /\p{N}/u.test(chars[j + 1] ?? "")) return;
      // (nor one a letter before it may overhang: the hook of "fo", the arm of a kerned "To", "Wo")
      if (OVERHANGS.test(chars[j - 1] ?? "")) return;
      const t = top(j);
      if (t === undefined) return;
      const q = (xTop - t) / separation; // 0 at the x-height, 1 at the capitals' height
      if (q < -OUTSIDE || q > 1 + OUTSIDE) return; // (a top far from both: not this letter's)
      const upper = ch === ch.toUpperCase();
      const [decisive, certain] = byCapitals ? [1 - DECISIVE, 1 - CERTAIN] : BY_ASCENDERS;
      const other = upper ? q <= DECISIVE : q >= decisive;
      if (!other) return;
      // (an o in a word of o's and digits may be a zero, "U+oooo" for "U+0000": the decoder's reading decides)
      if ((upper ? q <= CERTAIN : q >= certain) && !(/^[oO]$/.test(ch) && zeros(chars, j))) {
        chars[j] = upper ? ch.toLowerCase() : ch.toUpperCase();
        changed = true;
      } else {
        u.peaks ??= slotPeaks(u.ids, u.features, u.stride);
        u.peaks[j] = Math.min(u.peaks[j]!, DOUBTED);
      }
      doubted++;
    });
    if (changed) u.text = chars.join("");
  });
  return doubted;
}

/** A word's letters after its first stand at most this share of the way from the x-height to the ascenders' height
 * to be small capitals (Libertine's, in the dev set's French LaTeX page, 0.02-0.08 of the way)… */
const SMALL_CAP = 0.45;
/** …and its first at least this share (that page's capital R: 0.8). */
const FULL_CAP = 0.7;
/** A small capital's slot read this surely or more is taken to be unsure of its case alone, and is made CASE_SURE. */
const CASE_ONLY = 0.4;
const CASE_SURE = 0.9;
/** The fewest letters of a word set in small capitals that are read as such. */
const SMALL_CAP_LETTERS = 3;

/**
 * Words set in small capitals after a capital ("Knuth" set K-NUTH, as LaTeX's \textsc writes a name), which the
 * recogniser reads as capitals ("KNUTH", or "RoEGEL" where caseBySize took the o's height for a small letter's): their
 * letters after the first are written small (in `text`, in place), as the text they set. Only where the line shows its
 * x-height (small letters a e m n r u) and its ascenders (b d h k l) steadily apart, the word's first letter stands at
 * the ascenders' height (FULL_CAP) and every other letter measured, two at least, stands low (SMALL_CAP), or, where
 * the first letter touches the next and is not measured, three at least: a word of capitals set smaller than the
 * line's capitals stands low from its first letter on, and stays. Returns the number of letters made small.
 */
export function smallCaps(units: LineUnit[], crops: readonly LineCrop[], columns: readonly Float32Array[]): number {
  let made = 0;
  units.forEach((u, k) => {
    const chars = Array.from(u.text);
    const centres = columns[k];
    const crop = crops[k];
    if (!centres || !crop || chars.length !== centres.length || !/\p{Lu}\p{L}*\p{Lu}/u.test(u.text)) return;
    const heights = twoHeights(crop, chars, centres, "ascenders");
    if (!heights) return;
    const { top, xTop, separation } = heights;
    const q = (j: number) => {
      const t = top(j);
      return t === undefined ? undefined : (xTop - t) / separation;
    };
    let changed = false;
    for (const m of u.text.matchAll(/\p{Script=Latin}+/gu)) {
      const at = Array.from(u.text.slice(0, m.index)).length;
      const word = Array.from(m[0]);
      // (capitals after the first, among them small letters the recogniser or caseBySize read: "KNuTH", "RoEGEL")
      if (word.length < SMALL_CAP_LETTERS || word[0] !== word[0]!.toUpperCase()) continue;
      // (mostly capitals: "MeXowych", a logo's word with its X set low, reads as a word of small letters)
      if (word.slice(1).filter((ch) => ch !== ch.toLowerCase()).length * 2 < word.length - 1) continue;
      const first = q(at);
      if (first !== undefined && (first < FULL_CAP || first > 1 + OUTSIDE)) continue;
      const rest = word.slice(1).map((_, i) => q(at + 1 + i));
      const measured = rest.filter((v): v is number => v !== undefined);
      // (a first letter touching the next is not measured: three low capitals after it tell the word's face alone)
      if (measured.length < (first === undefined ? 3 : 2) || measured.some((v) => v > SMALL_CAP || v < -OUTSIDE)) continue;
      word.slice(1).forEach((ch, i) => {
        const lower = ch.toLowerCase();
        if (lower === ch) return;
        chars[at + 1 + i] = lower;
        // (the glyph's height settles its case: the merge takes the letter where the recogniser was unsure only of
        // that, as a second reading's "n" of "KNuTH" at 0.5-0.7 beside the decoder's "N")
        u.peaks ??= slotPeaks(u.ids, u.features, u.stride);
        if (u.peaks[at + 1 + i]! >= CASE_ONLY) u.peaks[at + 1 + i] = Math.max(u.peaks[at + 1 + i]!, CASE_SURE);
        made++;
        changed = true;
      });
    }
    if (changed) u.text = chars.join("");
  });
  return made;
}
