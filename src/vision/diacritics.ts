// Diacritics read from the glyphs. The line recogniser's alphabet (PP-OCR's) and the decoder's vocabulary lack most
// letters of Central European and Turkish Latin (č ř ž ě ů ł ą ę ő ş ğ …): the recogniser reads "č" as "c", and the
// decoder writes "c", or a look-alike it has ("ê" for "ě"). The diacritics model looks at the pixels around each
// letter the recogniser found (a window of the recogniser's own line crop, centred on the letter's CTC slot) and
// says which diacritic the letter carries, if any; the merge (engines/model/faithful.ts) composes the letter with it.
// Trained on synthetic lines (scripts/train/diacritics-data.mjs, python/ocr_tools/train/diacritics.py).
import { pageLanguage } from "./language.js";
import { dottedCapitalI, smallIDots } from "./letter-case.js";
import { cropValue, type LineCrop, type Tensor } from "./line-crop.js";
import { slotPeaks, type LineUnit } from "./lines.js";

/** The classes the diacritics model tells apart, in its output order: a combining mark, or how the base letter changes. */
export const DIACRITICS = [
  "none",
  "acute",
  "grave",
  "circumflex",
  "caron",
  "diaeresis",
  "ring",
  "dot",
  "double-acute",
  "ogonek",
  "cedilla",
  "stroke",
  "breve",
  "tilde",
  "macron",
  "dotless",
] as const;
export type Diacritic = (typeof DIACRITICS)[number];

const COMBINING: Partial<Record<Diacritic, string>> = {
  acute: "\u0301",
  grave: "\u0300",
  circumflex: "\u0302",
  caron: "\u030c",
  diaeresis: "\u0308",
  ring: "\u030a",
  dot: "\u0307",
  "double-acute": "\u030b",
  ogonek: "\u0328",
  cedilla: "\u0327",
  breve: "\u0306",
  tilde: "\u0303",
  macron: "\u0304",
};
const STROKED: Record<string, string> = { l: "ł", L: "Ł", d: "đ", D: "Đ", o: "ø", O: "Ø" };
const UNSTROKED: Record<string, string> = Object.fromEntries(Object.entries(STROKED).map(([a, b]) => [b, a]));
const BY_COMBINING = new Map(Object.entries(COMBINING).map(([k, v]) => [v, k as Diacritic]));

/** The letter without its mark, and the mark's class ("č" -> c, caron; "ł" -> l, stroke; "x" -> x, none). */
export function splitMark(ch: string): { base: string; mark: Diacritic } {
  if (UNSTROKED[ch]) return { base: UNSTROKED[ch]!, mark: "stroke" };
  if (ch === "ı") return { base: "i", mark: "dotless" };
  if (ch === "İ") return { base: "I", mark: "dot" };
  const d = ch.normalize("NFD");
  if (d.length === 2) {
    const mark = BY_COMBINING.get(d[1]!);
    if (mark) return { base: d[0]!, mark };
  }
  return { base: ch, mark: "none" };
}

/** `base` carrying `mark` as one character, or undefined where Unicode has no such letter. */
export function withMark(base: string, mark: Diacritic): string | undefined {
  if (mark === "none") return base;
  if (mark === "stroke") return STROKED[base];
  if (mark === "dotless") return base === "i" ? "ı" : undefined;
  if (mark === "dot" && base === "I") return "İ";
  const c = (base + COMBINING[mark]!).normalize("NFC");
  return c.length === 1 ? c : undefined;
}

/** The letters the model is given as its second input (a one-hot of the base letter, case folded; 26 = any other). */
export const DIACRITIC_LETTERS = 27;
export function letterIndex(base: string): number {
  const c = base.toLowerCase().charCodeAt(0) - 97;
  return c >= 0 && c < 26 && base.length === 1 ? c : 26;
}

/** The window the model sees: this many columns of the 48-row recogniser crop, centred on the slot. */
export const WINDOW_WIDTH = 32;

/**
 * The window of a line crop (the recogniser's input, `width` columns) centred at column `x`, its first channel
 * normalised to [-1, 1] as the recogniser sees it, as `WINDOW_WIDTH` columns by `height` rows; beyond the crop it is
 * white.
 */
export function letterWindow(crop: LineCrop, height: number, x: number, out = new Float32Array(height * WINDOW_WIDTH)): Float32Array {
  const left = Math.round(x - WINDOW_WIDTH / 2);
  for (let r = 0; r < height; r++)
    for (let c = 0; c < WINDOW_WIDTH; c++) {
      const cx = left + c;
      out[r * WINDOW_WIDTH + c] = cx >= 0 && cx < crop.width ? cropValue(crop, 0, r, cx) : 1;
    }
  return out;
}

/**
 * Slot j of a reading holds an accented o that the recogniser misread, where its alphabet lacks the letter or its type
 * sets the mark tall (Hungarian "val6", "lehet?ségeit", "kils?" for "való", "lehetőségeit", "külső"): a 6 or a
 * question mark after a letter and before no digit. The diacritics model reads its mark as an o's; the merge
 * (engines/model/faithful.ts) takes the decoder's letter there where it wrote an o (a question mark it wrote stays).
 */
export function misreadO(chars: readonly string[], j: number): boolean {
  const ch = chars[j];
  return (ch === "6" || ch === "?") && /\p{L}/u.test(chars[j - 1] ?? "") && !/\d/.test(chars[j + 1] ?? "");
}

/** Letters the diacritics model reads: Latin letters (with or without a diacritic already). */
export function markable(ch: string): boolean {
  return /^[A-Za-z]$/.test(splitMark(ch).base);
}

/**
 * The accented letters of the languages the model is for (lower case). A page's language is the one whose letters
 * its sure readings hold most of; a letter beyond it is a misreading there (a cedilla on "t" where the descender of
 * the "y" beside it reaches into its window, on a Czech page), and is not written.
 */
export const ALPHABETS: Record<string, string> = {
  cs: "áčďéěíňóřšťúůýž",
  sk: "áäčďéíĺľňóôŕšťúýž",
  pl: "ąćęłńóśźż",
  hu: "áéíóöőúüű",
  tr: "âçğıîöşüûi̇",
  ro: "ăâîşţșț",
  hr: "čćđšž",
  de: "äöü",
  fr: "àâçéèêëîïôùûüÿ",
  es: "áéíñóúü",
  pt: "áâãàçéêíóôõú",
  it: "àèéìíîòóùú",
};

/** The page's language: the alphabet holding most of the sure readings `made` (the letters they compose). */
export function pageAlphabet(made: readonly string[]): string {
  let best = "",
    score = -1;
  for (const letters of Object.values(ALPHABETS)) {
    const n = made.filter((ch) => letters.includes(ch.toLowerCase())).length;
    if (n > score) [best, score] = [letters, n];
  }
  return best;
}

/** Lines less high than this (page pixels, the detector's box) are not read: a diacritic there is a pixel or two,
 * and the recogniser's crop, scaled up to 48 rows, shows noise as marks (a table cut from an article at screen
 * resolution, its text 7 px high). Text of 9 pt at 150 DPI makes boxes of about 25 px. */
const MIN_LINE_HEIGHT = 16;

/** A page's letters sampled first, this many at most: the whole page is read only where they show diacritics. */
const SAMPLE = 320;
/** The letters that open the gate: the common letters beyond Latin-1 of the ALPHABETS (not ť ď ň ĺ ŕ ź: rare in
 * their languages, and what a speck beside a French or English t, d or n reads as). */
const SIGNATURE = "čřžšěůľłżąęśćńőűşğıăţșțđ";
/** Sure: a class this probable. */
export const DIACRITIC_SURE = 0.9;
/** …and a dotless i this probable: the model is less sure of a missing dot than of a mark it sees (Turkish "ı" at
 * 0.75-0.9 where its other letters are at 1.0), and a dotless reading is kept only where the page's alphabet is
 * Turkish (elsewhere it is foreign, at 0). */
const DOTLESS_SURE = 0.7;
/** …and a stroke (ł, đ) this probable: neither reader writes ł, so the bare l stands unless the model says so, and
 * on the four synthetic validation sets 22 of its 24 stroke readings at 0.7-0.9 are right (acute, caron: 84 %). */
const STROKE_SURE = 0.7;

/** How probable a reading of class `c` (an index of DIACRITICS) must be to be written. */
export function sureAt(c: number): number {
  const d = DIACRITICS[c];
  return d === "dotless" ? DOTLESS_SURE : d === "stroke" ? STROKE_SURE : DIACRITIC_SURE;
}
/** The sample must hold this many sure readings of SIGNATURE letters, lower case (a rule or a stamp above a scanned
 * form's capitals reads as carons and macrons; a language's letters are in its lower-case text). */
const GATE = 3;
/** Languages whose page is read whole without the sample's say: their signature letters are what the recogniser
 * misreads as marks or digits (a Hungarian "ő" read "?" or "6", never a letter the sample would hold), and their
 * function words (vision/language.ts) are read whole. Portuguese's ã and õ are no signature letters (Romanian's
 * ă is not its tilde), and the decoder writes them as â and ô ("combinaçâo"): its page is read whole too. */
const SIGNATURE_LANGUAGES = ["cs", "pl", "hu", "tr", "pt"];
/** Languages whose letters are all Latin-1's, which the decoder writes: a page their function words name is not
 * opened by its sample (cedillas read under an Italian help page's s and t in a sans face, "uşaţe" for "usate"); of
 * an Italian or French page only the letters LATIN1_MARKED names are read. */
const LATIN1_LANGUAGES = ["fr", "es", "it", "de"];

/** Whether chars[j] is a vowel that ends an Italian word of two letters or more, or the lone e that may be the verb
 * "è" (Italian's other words of one letter, a, i, o, never take an accent). */
export function wordFinalVowel(chars: readonly string[], j: number): boolean {
  const ch = chars[j] ?? "";
  if (!/^[aeiouAEIOU]$/.test(ch) || /\p{L}/u.test(chars[j + 1] ?? "")) return false;
  return /\p{L}/u.test(chars[j - 1] ?? "") || ch === "e" || ch === "E";
}

/** Whether chars[j] is a capital a mark may sit on (À, É, Ç, Ê, Î, Ô) or a lone "a" (à); not the lowered E of TeX's
 * logo ("LuaTEX"), whose window shows the T's bar above it (read as a grave). */
export function frenchMarkable(chars: readonly string[], j: number): boolean {
  const ch = chars[j] ?? "";
  if (ch === "E" && chars[j - 1] === "T" && chars[j + 1] === "X") return false;
  if (/^[AEICOU]$/.test(ch)) return true;
  return ch === "a" && !/\p{L}/u.test(chars[j - 1] ?? "") && !/\p{L}/u.test(chars[j + 1] ?? "");
}

/**
 * Latin-1 languages whose decoder writes its letters but misses some marks the type sets small: which letters of
 * their page are read for a mark (`at`) and the marked letters kept there (lower case). Italian's accents stand on
 * a word's last vowel ("città", "è", "perché", "così", "può", "più").
 */
const LATIN1_MARKED: Record<string, { at: (chars: readonly string[], j: number) => boolean; letters: string }> = {
  it: { at: wordFinalVowel, letters: "àèéìòù" },
  fr: { at: frenchMarkable, letters: "àâçéèêîô" },
};

/** A unit's evidence slots: one per character of its text (its second reading's, where it was read again on a
 * widened crop: its letters are read there, at their slots' columns in that crop). */
const slotsOf = (u: LineUnit) => u.peaks?.length ?? u.ids.length;

/** Gives every unit its readings, all "none" at probability 0 (no evidence) until a letter's reading is set. */
function unread(units: LineUnit[]): void {
  for (const u of units) {
    u.diacritics = new Uint8Array(slotsOf(u));
    u.diacriticPeaks = new Float32Array(slotsOf(u));
  }
}

/**
 * Reads the diacritics of a page's letters into each unit's `diacritics` and `diacriticPeaks` (in place). A sample
 * of the page's letters is read first; unless it shows GATE lower-case letters the decoder cannot write (č, ł, ő, ş …), the
 * page is left without (an English, French or German page: its decoder writes its letters, and every window costs
 * time). `columns[k]` are unit k's slot centres in its crop's columns.
 */
export async function readDiacritics(
  units: LineUnit[],
  crops: readonly LineCrop[],
  columns: readonly Float32Array[],
  run: (patches: Tensor, letters: Tensor) => Promise<Tensor>,
  height: number,
): Promise<void> {
  // unit, slot, letter, and whether the slot is an o the recogniser misread (misreadO: it does not open the gate)
  const letters: [number, number, string, boolean?][] = [];
  units.forEach((u, k) => {
    const chars = Array.from(u.text);
    if (chars.length !== slotsOf(u) || u.box.yMax - u.box.yMin < MIN_LINE_HEIGHT) return;
    chars.forEach((ch, j) => {
      if (markable(ch)) letters.push([k, j, ch]);
      else if (misreadO(chars, j)) letters.push([k, j, "o", true]);
    });
  });
  if (!letters.length) return;
  const read = async (which: readonly [number, number, string, boolean?][]) => {
    if (!which.length) return [];
    const size = height * WINDOW_WIDTH;
    const patches = new Float32Array(which.length * size);
    const onehot = new Float32Array(which.length * DIACRITIC_LETTERS);
    which.forEach(([k, j, ch], n) => {
      letterWindow(crops[k]!, height, columns[k]![j]!, patches.subarray(n * size, (n + 1) * size));
      onehot[n * DIACRITIC_LETTERS + letterIndex(splitMark(ch).base)] = 1;
    });
    const p = await run(
      { data: patches, dims: [which.length, 1, height, WINDOW_WIDTH] },
      { data: onehot, dims: [which.length, DIACRITIC_LETTERS] },
    );
    const classes = DIACRITICS.length;
    return which.map((_, n) => {
      let best = 0;
      for (let c = 1; c < classes; c++) if (p.data[n * classes + c]! > p.data[n * classes + best]!) best = c;
      return [best, p.data[n * classes + best]!] as const;
    });
  };
  const step = Math.max(1, Math.floor(letters.length / SAMPLE));
  // (not a line read again widened: its windows show wider glyphs, whose readings opened an English page's gate on
  // carons that are not there; they are read with the rest)
  const sampledAt = (n: number) => n % step === 0 && n / step < SAMPLE && units[letters[n]![0]]!.peaks === undefined;
  const sample = letters.filter((_, n) => sampledAt(n));
  const sampled = await read(sample);
  const beyond = sampled.filter(([c, p], n) => {
    const made = withMark(splitMark(sample[n]![2]).base, DIACRITICS[c]!);
    return c !== 0 && p >= DIACRITIC_SURE && made !== undefined && SIGNATURE.includes(made) && !sample[n]![3];
  }).length;
  const language = pageLanguage(units.map((u) => u.text).join(" ")) ?? "";
  // reads only the letters `chosen` and keeps each sure reading whose mark (and the letter it makes) `keep` takes;
  // every other letter is left unread
  const readOnly = async (chosen: typeof letters, keep: (mark: Diacritic, made: string | undefined) => boolean) => {
    const readings = await read(chosen);
    unread(units);
    chosen.forEach(([k, j, ch], n) => {
      const [c, p] = readings[n]!;
      const mark = DIACRITICS[c]!;
      if (c === 0 || p < DIACRITIC_SURE || !keep(mark, withMark(ch, mark))) return;
      units[k]!.diacritics![j] = c;
      units[k]!.diacriticPeaks![j] = p;
    });
  };
  if ((beyond < GATE || LATIN1_LANGUAGES.includes(language)) && !SIGNATURE_LANGUAGES.includes(language)) {
    const where = LATIN1_MARKED[language];
    if (where) {
      // an Italian page: a word's last vowel may carry the accent the decoder writes bare where the type sets it
      // small ("puo", "qualita", "cioe" for "può", "qualità", "cioè" in Computer Modern); a French page: a capital
      // ("A l'occasion" for "À"), and the lone "a" that may be "à". Those letters are read, and only a sure mark
      // that makes a letter the language writes there is kept
      const chars = units.map((u) => Array.from(u.text));
      await readOnly(
        letters.filter(([k, j]) => where.at(chars[k]!, j)),
        (_, made) => made !== undefined && where.letters.includes(made.toLowerCase()),
      );
      return;
    }
    // a page whose sample shows umlauts (German, Swedish, Finnish): the decoder writes ä ö ü but reads a capital bare
    // ("Anderungen"), so its capitals A, O, U are read for theirs — only a sure diaeresis is kept
    const umlauts = sampled.filter(
      ([c, p], n) => DIACRITICS[c] === "diaeresis" && p >= DIACRITIC_SURE && /^[aou]$/.test(sample[n]![2]),
    ).length;
    if (umlauts < GATE) return;
    await readOnly(
      letters.filter(([, , ch]) => /^[AOU]$/.test(ch)),
      (mark) => mark === "diaeresis",
    );
    return;
  }
  // the rest of the page's letters, beside the sample's readings
  const rest = await read(letters.filter((_, n) => !sampledAt(n)));
  let fromSample = 0,
    fromRest = 0;
  const all = letters.map((_, n) => (sampledAt(n) ? sampled[fromSample++]! : rest[fromRest++]!));
  unread(units);
  const made = letters.map(([, , ch], n) => withMark(splitMark(ch).base, DIACRITICS[all[n]![0]]!));
  const letterAt = new Map(letters.map(([k, j], n) => [`${k}:${j}`, n]));
  const alphabet = pageAlphabet(made.filter((ch, n): ch is string => ch !== undefined && all[n]![0] !== 0 && all[n]![1] >= DIACRITIC_SURE));
  letters.forEach(([k, j], n) => {
    const ch = made[n];
    const foreign = all[n]![0] !== 0 && (ch === undefined || !alphabet.includes(ch.toLowerCase()));
    units[k]!.diacritics![j] = all[n]![0];
    units[k]!.diacriticPeaks![j] = foreign ? 0 : all[n]![1];
    if (foreign && all[n]![1] >= DIACRITIC_SURE) cedillaRead(units[k]!, j, ch, alphabet, all[n]![1]);
  });
  if (alphabet === ALPHABETS.tr) {
    for (const u of units) vowelHarmony(u);
    // a small i's glyph with nothing above its body is ı, with a dot apart above it i, whatever harmony says
    // ("ayrılir" read dotted at 0.97 or more; a loanword's "sahip"), unless another mark was read on it sure (î)
    units.forEach((u, k) => {
      for (const [j, dots] of smallIDots(u, crops[k]!, columns[k]!)) {
        const [c, p] = all[letterAt.get(`${k}:${j}`)!] ?? [0, 0];
        const mark = DIACRITICS[c];
        if (mark === "none" || mark === "dot" || mark === "dotless" || p < DIACRITIC_SURE)
          [u.diacritics![j], u.diacriticPeaks![j]] = [dots === "dotted" ? NONE : DOTLESS, 1];
      }
    });
    // a capital I whose glyph shows a dot above it is İ, whatever harmony says ("GARANTİ"), unless another mark was
    // read on it sure (Î)
    units.forEach((u, k) => {
      for (const j of dottedCapitalI(u, crops[k]!, columns[k]!)) {
        const [c, p] = all[letterAt.get(`${k}:${j}`)!] ?? [0, 0];
        const mark = DIACRITICS[c];
        if (mark === "none" || mark === "dot" || mark === "dotless" || p < DIACRITIC_SURE)
          [u.diacritics![j], u.diacriticPeaks![j]] = [DOT, 1];
      }
    });
  }
}

/** A recogniser's g read less surely than this may be a misread ç (cedillaRead). */
const MISREAD_G = 0.9;

/**
 * A ç the recogniser read as a g, its cedilla taken for the g's tail ("segenekler", "giktiya" for "seçenekler",
 * "çıktıya" on a Turkish page: those g's read at 0.42-0.77): where the recogniser's g is unsure (under
 * MISREAD_G), the diacritics model reads a cedilla on it sure, and the page's alphabet has ç but not ģ, slot j of `u`
 * reads c, at the mark's sureness, with its cedilla (in place). (A g read at 0.999 with a cedilla was a ğ.)
 */
function cedillaRead(u: LineUnit, j: number, made: string | undefined, alphabet: string, sureness: number): void {
  if ((made !== "ģ" && made !== "Ģ") || !alphabet.includes("ç")) return;
  const peaks = u.peaks ?? slotPeaks(u.ids, u.features, u.stride);
  if (peaks[j]! >= MISREAD_G) return;
  const chars = Array.from(u.text);
  chars[j] = made === "ģ" ? "c" : "C";
  u.text = chars.join("");
  u.peaks = peaks;
  peaks[j] = Math.max(peaks[j]!, sureness);
  u.diacriticPeaks![j] = sureness;
}

const NONE = DIACRITICS.indexOf("none");
const DOT = DIACRITICS.indexOf("dot");
const DOTLESS = DIACRITICS.indexOf("dotless");

/** A dot read this sure keeps an i after a back vowel dotted (a loanword's "sahip"); a dotless ı read as dotted
 * ("satir", "ayrılir" at 0.92) is less sure. On the probe's eight Turkish pages: at 0.9, 153 errors; 0.97, 147;
 * 0.995, 149. */
const HARMONY_DOT_SURE = 0.97;

/**
 * A Turkish line's i's by vowel harmony, where the glyph's dot is not sure. After a or ı, a Turkish word's next
 * high unrounded vowel is ı; after e or i, it is i (the man-page corpus of the language probe: 44,146 ı and 5,013 i
 * after a or ı, 52,981 i and 2 ı after e or i). The diacritics model misses a dotless ı's missing dot often (35 of 90
 * on the probe's Turkish pages, read as a dotted i at 0.55-0.97) and never read a dotted i as dotless there, and
 * reads the capital İ's dot as none (40 of 46). So, in a word's letters left to right:
 * - a small i after a or ı is ı, unless its dot was read at HARMONY_DOT_SURE (the loanwords and the suffixes that keep i:
 *   "sahip", "otomatik"; the two common suffixes that never harmonise, "-ki" after a locative and "-abil-",
 *   are left as read);
 * - a small i after e or i is i;
 * - in a word of capitals, an I after E or İ is İ, after A or I an I (a small i there is a dotted İ: left).
 * The first vowel of a word has nothing before it and keeps its reading. A letter the rule decides is read at 1
 * (the peaks are float32: 0.7 there is below DOTLESS_SURE).
 */
export function vowelHarmony(u: LineUnit): void {
  const marks = u.diacritics,
    peaks = u.diacriticPeaks;
  if (!marks || !peaks || Array.from(u.text).length !== marks.length) return;
  for (const word of u.text.matchAll(/\p{L}+/gu)) {
    const start = Array.from(u.text.slice(0, word.index)).length;
    const letters = Array.from(word[0]);
    // (a word of capitals may hold small i's: the recogniser reads a capital İ's dot so, and turkishLetters
    // in engines/model/faithful.ts writes them İ)
    const big = letters.filter((c) => c !== "i");
    const capitals = big.length >= 2 && big.every((c) => c !== c.toLowerCase());
    // the vowel before, as the line now reads: back (a ı), front (e i), or none that decides
    let before: "back" | "front" | undefined;
    letters.forEach((ch, q) => {
      const j = start + q;
      if (capitals && ch === "I") {
        if (before) [marks[j], peaks[j]] = [before === "front" ? DOT : NONE, 1];
        before = peaks[j]! < DIACRITIC_SURE ? undefined : marks[j] === DOT ? "front" : marks[j] === NONE ? "back" : undefined;
      } else if (capitals && ch === "i") before = "front";
      else if (ch === "i") {
        const rest = letters.slice(q + 1).join("");
        // "-daki", "-taki", "sonraki" (a stem's k before a vowel is ğ: "kı" after a is the suffix) and "-abil-":
        // suffixes that keep their i
        const keeps =
          (letters[q - 1] === "k" && /[dtr]a$/.test(letters.slice(0, q - 1).join("")) && /^(?:|ler\p{L}*|n[ie]n?|nde|nden)$/u.test(rest)) ||
          (letters[q - 1] === "b" && letters[q - 2] === "a" && letters[q + 1] === "l");
        if (before === "back" && !keeps && !(marks[j] === NONE && peaks[j]! >= HARMONY_DOT_SURE)) [marks[j], peaks[j]] = [DOTLESS, 1];
        else if (before === "front" && marks[j] === DOTLESS) [marks[j], peaks[j]] = [NONE, 1];
        before = marks[j] === DOTLESS && peaks[j]! >= DOTLESS_SURE ? "back" : "front";
      } else if (/[aâıAÂI]/.test(ch)) before = "back";
      else if (/[eEİ]/.test(ch)) before = "front";
      else if (/[oöuüOÖUÜ]/.test(ch)) before = undefined;
    });
  }
}
