// Where display formulas may sit among a page's lines, and the lines they replace (src/layout/formulas.ts).
import { describe, expect, it } from "vitest";
import { formulaRegions, withFormulas } from "../../src/layout/formulas.js";
import { assemblePage } from "../../src/layout/page.js";
import { pageLine } from "./helpers.js";

// a column from x 120 to 1120, lines 30 px high every 32 px (150 DPI)
const box = (x0: number, y0: number, x1: number, h = 30) => ({ xMin: x0, yMin: y0, xMax: x1, yMax: y0 + h });

describe("formulaRegions", () => {
  // a paragraph, a display formula whose numerator and denominator were detected as their own lines, its equation
  // number at the column's right edge, a paragraph again, then a centred one-line formula
  const boxes = [
    box(120, 100, 1120),
    box(120, 132, 1120),
    box(120, 164, 900),
    box(520, 210, 700), // numerator
    box(470, 236, 760), // fraction bar and the rest of the line
    box(540, 262, 680), // denominator
    box(1060, 236, 1120), // (7)
    box(120, 310, 1120),
    box(120, 342, 1120),
    box(430, 390, 810), // a one-line formula
    box(120, 440, 1120),
    box(120, 472, 1120),
  ];
  const texts = ["Note that", "all of it", "Write", "a", "x = b", "c", "(7)", "where", "and so", "y = 2", "then", "end"];

  it("groups a formula's stacked lines into one region and finds its equation number", () => {
    const regions = formulaRegions(boxes, texts);
    expect(regions.map((r) => r.members)).toEqual([[3, 4, 5], [9]]);
    expect(regions[0]!.tag).toEqual({ line: 6, number: "7" });
    expect(regions[0]!.box).toEqual({ xMin: 470, yMin: 210, xMax: 760, yMax: 292 });
    expect(regions[1]!.tag).toBeUndefined();
  });

  it("leaves body lines, a short last line of a paragraph and the tag itself out", () => {
    const members = formulaRegions(boxes, texts).flatMap((r) => r.members);
    for (const i of [0, 1, 2, 6, 7, 8, 10, 11]) expect(members).not.toContain(i);
  });

  it("leaves out the short end of an indented list item or code line (indented, but not centred)", () => {
    const page = [box(120, 100, 1120), box(180, 132, 1120), box(180, 164, 420), box(120, 196, 1120), box(120, 228, 1120)];
    expect(
      formulaRegions(
        page,
        page.map(() => "w"),
      ),
    ).toEqual([]);
  });

  it("takes a line alone on its page (a formula cut out of a page) as a candidate", () => {
    expect(formulaRegions([box(10, 10, 300, 60)], ["x"]).map((r) => r.members)).toEqual([[0]]);
  });

  it("drops a region taller than six lines (a centred figure's labels, a poem)", () => {
    const tall = [box(120, 0, 1120), ...Array.from({ length: 8 }, (_, k) => box(500, 40 + 30 * k, 700)), box(120, 300, 1120)];
    expect(
      formulaRegions(
        tall,
        tall.map(() => "w"),
      ),
    ).toEqual([]);
  });
});

describe("withFormulas", () => {
  const lines = [
    pageLine(120, 100, 1120, 130, "\n\nWe have"),
    pageLine(520, 210, 700, 240, " a"),
    pageLine(470, 236, 760, 266, " x = b"),
    pageLine(1060, 236, 1120, 266, " (7)"),
    pageLine(120, 310, 1120, 340, " where the"),
    pageLine(120, 342, 1120, 372, " rest follows."),
  ];

  it("puts the formula's LaTeX in place of its lines, with its number as a tag, and starts a block after it", () => {
    const out = withFormulas(lines, [{ members: [1, 2], tag: { line: 3, number: "7" }, latex: "\\frac{a}{x}=b" }]);
    expect(out.map((l) => l.markdown)).toEqual(["\n\nWe have", "\n\n$$\\frac{a}{x}=b \\tag{7}$$", "\n\nwhere the", " rest follows."]);
    expect(out[1]!.box).toEqual({ xMin: 470, yMin: 210, xMax: 1120, yMax: 266 });
  });

  it("gives the page a formula block with its box, between two paragraphs", () => {
    const out = withFormulas(lines, [{ members: [1, 2], tag: { line: 3, number: "7" }, latex: "\\frac{a}{x}=b" }]);
    const page = assemblePage(out, 1240, 1754);
    expect(page.blocks.map((b) => b.type)).toEqual(["paragraph", "formula", "paragraph"]);
    expect(page.blocks[1]!.text).toBe("\\frac{a}{x}=b \\tag{7}");
    expect(page.blocks[1]!.bbox).toEqual([470, 210, 1120, 266]);
    expect(page.markdown).toContain("\n\n$$\\frac{a}{x}=b \\tag{7}$$\n\n");
  });

  it("writes the lines' text in the $$ block where the reader is unsure of the LaTeX", () => {
    const out = withFormulas(lines, [{ members: [1, 2], latex: "\\frac{a}{x}", sure: false }]);
    expect(out.map((l) => l.markdown)).toEqual(["\n\nWe have", "\n\n$$a x = b$$", "\n\n(7)", " where the", " rest follows."]);
  });

  it("returns the lines as they were without formulas", () => {
    expect(withFormulas(lines, [])).toEqual(lines);
  });
});
