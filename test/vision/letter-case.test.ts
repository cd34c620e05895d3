// The case of c o s v w x z read from the glyph's height (src/vision/letter-case.ts), on crops drawn glyph by glyph:
// each glyph a block of ink from its top to the baseline, in a 16-column cell, as a typewriter face sets it.
import { describe, expect, it } from "vitest";
import { caseBySize, dottedCapitalI, slotHeights, smallCaps, smallIDots } from "../../src/vision/letter-case.js";
import type { LineCrop } from "../../src/vision/line-crop.js";
import type { LineUnit } from "../../src/vision/lines.js";

const HEIGHT = 48,
  CELL = 16,
  BASELINE = 30,
  X_TOP = 15,
  CAP_TOP = 11;
const PEAK = 0.98;

/** A glyph: its letter, the row its body's top stands at, a mark above it (a dot at `mark`, two rows), and a grey
 * row above its top (anti-aliasing: the edge lies inside the row above by `grey`, 0-1). */
interface Glyph {
  ch: string;
  top: number;
  mark?: number;
  grey?: number;
}

/** The default top of a letter: capitals and ascenders at CAP_TOP, others at X_TOP (spaces have none). */
const glyph = (ch: string, top?: number): Glyph => ({ ch, top: top ?? (/[A-Zbdhklf]/.test(ch) ? CAP_TOP : X_TOP) });

/** A line of glyphs, its crop and slot centres; `shift[j]` moves slot j's centre that far off its glyph. */
function line(glyphs: Glyph[], shift: Record<number, number> = {}): { unit: LineUnit; crop: LineCrop; columns: Float32Array } {
  const width = glyphs.length * CELL + 8;
  const pixels = new Uint8Array(width * HEIGHT).fill(255);
  const ink = (r: number, x0: number, x1: number, v = 0) => {
    for (let x = x0; x < x1; x++) pixels[r * width + x] = v;
  };
  glyphs.forEach((g, j) => {
    if (g.ch === " ") return;
    const x0 = 4 + j * CELL + 3,
      x1 = x0 + CELL - 6;
    // (rounded: its first two rows stand over its middle columns only)
    for (let r = g.top; r < BASELINE; r++) ink(r, r < g.top + 2 ? x0 + 3 : x0, r < g.top + 2 ? x1 - 3 : x1);
    if (g.grey) ink(g.top - 1, x0 + 3, x1 - 3, Math.round(255 * (1 - g.grey)));
    if (g.mark !== undefined) for (let r = g.mark; r < g.mark + 2; r++) ink(r, x0 + 3, x1 - 3);
  });
  const n = glyphs.length;
  const stride = 4;
  const features = new Float32Array(n * stride);
  for (let j = 0; j < n; j++) features[(j + 1) * stride - 2] = PEAK;
  const unit: LineUnit = {
    box: { xMin: 0, yMin: 0, xMax: width, yMax: HEIGHT, score: 1 },
    geometry: new Float32Array(4),
    ids: new Int32Array(n).fill(1),
    features,
    stride,
    text: glyphs.map((g) => g.ch).join(""),
  } as LineUnit;
  const columns = Float32Array.from(glyphs, (_, j) => 4 + j * CELL + CELL / 2 + (shift[j] ?? 0));
  return { unit, crop: { width, height: HEIGHT, channels: 1, pixels }, columns };
}

const word = (text: string, tops: Record<number, number> = {}) => Array.from(text, (ch, j) => glyph(ch, tops[j]));

describe("caseBySize", () => {
  it("writes a capital where a small letter's glyph stands at the capitals' height, and the reverse", () => {
    // "Libreoffice" read for "LibreOffice", "Zmeny" for "zmeny"
    const a = line(word("Libreoffice Dem", { 5: CAP_TOP }));
    const b = line(word("Zmeny Bahn", { 0: X_TOP }));
    expect(caseBySize([a.unit, b.unit], [a.crop, b.crop], [a.columns, b.columns])).toBe(2);
    expect(a.unit.text).toBe("LibreOffice Dem");
    expect(b.unit.text).toBe("zmeny Bahn");
    expect(a.unit.peaks).toBeUndefined();
  });

  it("reads a key's letter standing alone, but not a letter beside a digit", () => {
    const a = line(word("Ctrl+s. Dem Bahn", { 5: CAP_TOP }));
    const b = line(word("S66 Dem Bahn amen", { 0: X_TOP }));
    caseBySize([a.unit, b.unit], [a.crop, b.crop], [a.columns, b.columns]);
    expect([a.unit.text, b.unit.text]).toEqual(["Ctrl+S. Dem Bahn", "S66 Dem Bahn amen"]);
  });

  it("finds the glyph a few columns off the slot's centre", () => {
    const a = line(word("Libreoffice Dem", { 5: CAP_TOP }), { 5: 6 });
    caseBySize([a.unit], [a.crop], [a.columns]);
    expect(a.unit.text).toBe("LibreOffice Dem");
  });

  it("leaves a letter at its own height, and only doubts one between the two heights", () => {
    const a = line(word("Libreoffice Dem"));
    expect(caseBySize([a.unit], [a.crop], [a.columns])).toBe(0);
    expect(a.unit.text).toBe("Libreoffice Dem");
    // three quarters of the way up: the decoder's letter is taken there, the text stays
    const b = line(word("Libreoffice Dem", { 5: X_TOP - 3 }));
    expect(caseBySize([b.unit], [b.crop], [b.columns])).toBe(1);
    expect(b.unit.text).toBe("Libreoffice Dem");
    expect(b.unit.peaks?.[5]).toBe(0.5);
    expect(b.unit.peaks?.[4]).toBeCloseTo(PEAK);
  });

  it("reads a capital against the ascenders where the line has too few capitals, whose tops stand lower", () => {
    // a typewriter face: ascenders at row 8, a W's top at 10 (5/7 of the way up from the x-height), "wpisz" for "Wpisz"
    const tops = (text: string, at: Record<number, number>) =>
      Array.from(text, (ch, j) => ({ ch, top: at[j] ?? (/[bdhkl]/.test(ch) ? 8 : X_TOP) }));
    const a = line(tops("wpisz slowo kluczowe", { 0: 10 }));
    const b = line(tops("wpisz slowo kluczowe", { 0: 11 }));
    expect(caseBySize([a.unit, b.unit], [a.crop, b.crop], [a.columns, b.columns])).toBe(2);
    expect(a.unit.text).toBe("Wpisz slowo kluczowe");
    // at 4/7 of the way: the decoder's letter is taken there
    expect([b.unit.text, b.unit.peaks?.[0]]).toEqual(["wpisz slowo kluczowe", 0.5]);
  });

  it("only doubts an o among zeros, which the decoder reads", () => {
    const a = line(word("U+oooo Dem Bahn", { 2: CAP_TOP, 3: CAP_TOP, 4: CAP_TOP, 5: CAP_TOP }));
    expect(caseBySize([a.unit], [a.crop], [a.columns])).toBe(4);
    expect(a.unit.text).toBe("U+oooo Dem Bahn");
    expect(Array.from(a.unit.peaks!.subarray(2, 6))).toEqual([0.5, 0.5, 0.5, 0.5]);
  });

  it("reads the edge of a glyph within its grey row", () => {
    // three rows above the x-height and half the grey row above: 0.875 of the way up, certain; whole rows: 0.75
    const a = line([...word("Libre"), { ch: "o", top: X_TOP - 3, grey: 0.5 }, ...word("ffice Dem")]);
    caseBySize([a.unit], [a.crop], [a.columns]);
    expect(a.unit.text).toBe("LibreOffice Dem");
  });

  it("measures a letter's body, not the mark above it", () => {
    const a = line([...word("Kon"), { ch: "o", top: X_TOP, mark: CAP_TOP - 2 }, ...word("rad Bahn")]);
    expect(caseBySize([a.unit], [a.crop], [a.columns])).toBe(0);
    expect(a.unit.text).toBe("Konorad Bahn");
  });

  it("reads nothing where the evidence is weak", () => {
    // a letter after one that may overhang it ("fo"), one beside no letter ("S66"), a line whose small letters
    // stand at scattered heights, and a line with too few capitals or ascenders
    const overhang = line(word("Dem foam Bahn", { 5: CAP_TOP }));
    const digits = line(word("S66 Bahn mean", { 0: X_TOP }));
    const scattered = line(word("amenu Box Dem", { 0: X_TOP - 3, 2: X_TOP + 3, 3: X_TOP - 2, 7: CAP_TOP }));
    const flat = line(word("a menu of", { 7: CAP_TOP }));
    // and a top far above both heights (not the letter's: a line's ink above it)
    const far = line(word("Bahn Demo", { 8: CAP_TOP - 6 }));
    const all = [overhang, digits, scattered, flat, far];
    expect(
      caseBySize(
        all.map((l) => l.unit),
        all.map((l) => l.crop),
        all.map((l) => l.columns),
      ),
    ).toBe(0);
    expect(all.map((l) => l.unit.text)).toEqual(["Dem foam Bahn", "S66 Bahn mean", "amenu Box Dem", "a menu of", "Bahn Demo"]);
  });

  it("leaves a letter read with a diacritic", () => {
    const a = line(word("Libreoffice Dem", { 5: CAP_TOP }));
    a.unit.diacritics = new Uint8Array(a.unit.text.length);
    a.unit.diacritics[5] = 6;
    expect(caseBySize([a.unit], [a.crop], [a.columns])).toBe(0);
  });
});

describe("dottedCapitalI", () => {
  it("finds the capital I's whose glyph shows a dot above it, apart from its body", () => {
    // "ILGILI" with a dot two rows tall, two rows of paper above the capitals, over the first, third and fifth I;
    // the fourth's mark is a bar as tall as half its body, no dot
    const glyphs = word("ILGILI BELGELER");
    glyphs[0] = { ...glyphs[0]!, mark: CAP_TOP - 4 };
    glyphs[3] = { ...glyphs[3]!, mark: CAP_TOP - 4 };
    glyphs[5] = { ...glyphs[5]!, mark: CAP_TOP - 4 };
    const a = line(glyphs);
    expect(dottedCapitalI(a.unit, a.crop, a.columns)).toEqual([0, 3, 5]);
    // a dot that touches the body is part of it, and a letter other than I is not asked about
    const touching = line([{ ch: "I", top: CAP_TOP, mark: CAP_TOP - 2 }, ...word("LGE"), { ch: "L", top: CAP_TOP, mark: CAP_TOP - 4 }]);
    expect(dottedCapitalI(touching.unit, touching.crop, touching.columns)).toEqual([]);
  });

  it("takes no tall mark for a dot", () => {
    const glyphs = word("ILGI");
    glyphs[0] = { ...glyphs[0]!, top: CAP_TOP };
    const a = line(glyphs);
    // a bar 8 rows tall above the first I, two rows of paper between
    for (let r = 1; r < CAP_TOP - 2; r++) for (let x = 4 + 3 + 3; x < 4 + 3 + 10 - 3; x++) a.crop.pixels[r * a.crop.width + x] = 0;
    expect(dottedCapitalI(a.unit, a.crop, a.columns)).toEqual([]);
  });
});

describe("slotHeights", () => {
  it("measures each glyph's height over the line's x-height, from the baseline", () => {
    // "Mactep KOHBepTepa" read for "Мастер конвертера": the recogniser's M and K, H, B, T are small letters' glyphs
    const a = line(word("Mactep KOHBepTepa", { 0: CAP_TOP, 7: X_TOP, 8: X_TOP, 9: X_TOP, 10: X_TOP, 13: X_TOP }));
    slotHeights([a.unit], [a.crop], [a.columns]);
    const h = Array.from(a.unit.heights!, (v) => (Number.isNaN(v) ? null : Math.round(v * 100) / 100));
    const capital = Math.round(((BASELINE - CAP_TOP) / (BASELINE - X_TOP)) * 100) / 100;
    expect(h).toEqual([capital, 1, 1, 1, 1, 1, null, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it("measures nothing on a line whose small letters stand at scattered heights, or too few of them", () => {
    const scattered = line(word("amenu Box", { 0: X_TOP - 3, 2: X_TOP + 3, 3: X_TOP - 2 }));
    const few = line(word("KOHTO", { 0: X_TOP }));
    slotHeights([scattered.unit, few.unit], [scattered.crop, few.crop], [scattered.columns, few.columns]);
    expect([scattered.unit.heights, few.unit.heights]).toEqual([undefined, undefined]);
  });

  it("leaves a glyph touching its neighbour unmeasured", () => {
    const a = line(word("Mactep amen"));
    // the c's ink joined to the t's across their cells' gap
    for (let r = X_TOP + 4; r < X_TOP + 6; r++)
      for (let x = 4 + 2 * CELL + 3; x < 4 + 4 * CELL; x++) a.crop.pixels[r * a.crop.width + x] = 0;
    slotHeights([a.unit], [a.crop], [a.columns]);
    expect(Array.from(a.unit.heights!.slice(1, 5), (v) => Number.isNaN(v))).toEqual([false, true, true, false]);
  });
});

describe("smallIDots", () => {
  it("reads a small i's dot from its glyph: apart above it, none at all, or joined to its stem (unread)", () => {
    // "ayrilir" with the first i dotted, the second bare; "satir" with its i's dot joined to the stem (a taller body)
    const glyphs = word("ayrilir satir");
    glyphs[3] = { ...glyphs[3]!, mark: X_TOP - 5 };
    glyphs[11] = { ...glyphs[11]!, top: X_TOP - 4 };
    const a = line(glyphs);
    expect([...smallIDots(a.unit, a.crop, a.columns)]).toEqual([
      [3, "dotted"],
      [5, "dotless"],
    ]);
    // a line with too few small letters to find the x-height reads none
    const few = line(word("Ii İi"));
    expect(smallIDots(few.unit, few.crop, few.columns).size).toBe(0);
  });
});

describe("smallCaps", () => {
  // a word set K-NUTH in small capitals: its first letter at the capitals' height, the rest at the x-height
  const low = (from: number, to: number) => Object.fromEntries(Array.from({ length: to - from }, (_, i) => [from + i, X_TOP]));

  it("writes small the capitals after a word's first that stand at the x-height, and settles their case", () => {
    const a = line(word("code par KNUTH dans le", low(10, 14)));
    // (the recogniser unsure of the N: the glyph's height makes it sure of its case)
    a.unit.features[(10 + 1) * a.unit.stride - 2] = 0.6;
    expect(smallCaps([a.unit], [a.crop], [a.columns])).toBe(4);
    expect(a.unit.text).toBe("code par Knuth dans le");
    expect(a.unit.peaks![10]).toBeCloseTo(0.9);
    expect(a.unit.peaks![11]).toBeCloseTo(0.98);
    // a small letter the recogniser already read small among them stays so ("KNuTH")
    const b = line(word("code par KNuTH dans le", low(10, 14)));
    smallCaps([b.unit], [b.crop], [b.columns]);
    expect(b.unit.text).toBe("code par Knuth dans le");
  });

  it("leaves capitals at the capitals' height, a word set small from its first letter, and a line without references", () => {
    const tall = line(word("code par NASA dans le"));
    const small = line(word("code par NASA dans le", low(9, 13)));
    const bare = line(word("CODE PAR KNUTH", low(10, 14)));
    expect(
      smallCaps([tall.unit, small.unit, bare.unit], [tall.crop, small.crop, bare.crop], [tall.columns, small.columns, bare.columns]),
    ).toBe(0);
    expect([tall.unit.text, small.unit.text, bare.unit.text]).toEqual(["code par NASA dans le", "code par NASA dans le", "CODE PAR KNUTH"]);
    expect(tall.unit.peaks).toBeUndefined();
  });

  it("leaves a word of two letters, and one whose later capital stands tall (LaTeX), or a word mostly of small letters", () => {
    const two = line(word("code par KN dans le", low(10, 11)));
    const mixed = line(word("code par LaTeX dans le", { 10: X_TOP }));
    // (nor a word mostly of small letters with one capital set low: a logo's word, sc-polski-p5's "MeXowych")
    const logo = line(word("code par MeXowe dans le", { 11: X_TOP }));
    smallCaps([two.unit, mixed.unit, logo.unit], [two.crop, mixed.crop, logo.crop], [two.columns, mixed.columns, logo.columns]);
    expect([two.unit.text, mixed.unit.text, logo.unit.text]).toEqual([
      "code par KN dans le",
      "code par LaTeX dans le",
      "code par MeXowe dans le",
    ]);
  });
});
