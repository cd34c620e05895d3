import { describe, expect, it } from "vitest";
import { capAlone, dropCaps, withDropCap } from "../../src/vision/drop-caps.js";
import { inkOutsideBoxes } from "../../src/vision/missed-text.js";
import { box, inkPage, type Rect } from "./helpers.js";

/** A "T" with its top at y and its stem's foot at y + h, from x: an arm h * 0.8 wide, a stem a tenth of it. */
function tee(x: number, y: number, h: number): Rect[] {
  const w = Math.round(0.8 * h),
    t = Math.max(2, Math.round(h / 10));
  return [
    [x, y, x + w, y + t],
    [x + Math.round(w / 2 - t / 2), y, x + Math.round(w / 2 + t / 2), y + h],
  ];
}
/** A line of `n` glyphs 6 px wide from x: lower case 8 px high on a baseline at y + 12, every third an ascender. */
function line(x: number, y: number, n: number): Rect[] {
  return Array.from({ length: n }, (_, k): Rect => [x + 9 * k, y + (k % 3 === 0 ? 0 : 4), x + 9 * k + 6, y + 12]);
}
// lines of 12-px type on a 20-px pitch, boxes 18 px high about them (from 3 px above their ascenders)
const lineBox = (x: number, y: number, n: number) => box(x - 3, y - 3, x + 9 * n, y + 15);

describe("dropCaps", () => {
  // a "T" from the first line's top to the third's baseline (52 px, 2.9 line heights), the lines set in beside it
  const cap = tee(40, 100, 52);
  const text = [...line(90, 100, 30), ...line(90, 120, 30), ...line(90, 140, 30), ...line(40, 160, 36)];
  const boxes = [lineBox(90, 100, 30), lineBox(90, 120, 30), lineBox(90, 140, 30), lineBox(40, 160, 36)];

  it("finds a letter several lines tall beside the top of a stack of lines, as the first line's", () => {
    const px = inkPage(600, 300, [...cap, ...text]);
    const caps = dropCaps(px, boxes, inkOutsideBoxes(px, boxes));
    expect(caps).toHaveLength(1);
    expect(caps[0]!.line).toBe(0);
    expect(caps[0]!.cap).toEqual(box(40, 100, 82, 152));
    expect(caps[0]!.own).toBeUndefined();
  });

  it("takes the letter whole where the first line's box reaches over its right side", () => {
    const px = inkPage(600, 300, [...cap, ...text]);
    const over = [box(70, 97, 360, 115), ...boxes.slice(1)];
    const caps = dropCaps(px, over, inkOutsideBoxes(px, over));
    expect(caps).toHaveLength(1);
    expect(caps[0]!.cap.xMax).toBe(82);
  });

  it("joins an accent over the letter, not a piece of the first line beside it", () => {
    // an acute 8 px above the cap; a speck of the first line's first letter left outside its box, at the cap's right
    const px = inkPage(600, 300, [...cap, [56, 88, 66, 95], [84, 130, 87, 140], ...text]);
    const caps = dropCaps(px, boxes, inkOutsideBoxes(px, boxes));
    expect(caps).toHaveLength(1);
    expect(caps[0]!.cap).toEqual(box(40, 88, 82, 152));
    // (its height is the letter's, without the accent)
    expect(caps[0]!.height).toBe(52);
  });

  it("takes the letter whole where the first line's box reaches over all of it but its foot", () => {
    // a cap two lines deep (to the second line's baseline); the first line's box, from the letter's left edge, ends
    // 6 px (a third of a line) above its foot
    const px = inkPage(600, 300, [...tee(40, 100, 32), ...text]);
    const over = [box(40, 99, 360, 126), ...boxes.slice(1)];
    const caps = dropCaps(px, over, inkOutsideBoxes(px, over));
    expect(caps.map((c) => c.cap)).toEqual([box(40, 100, 66, 132)]);
    expect(caps[0]!.line).toBe(0);
  });

  it("takes the letter whole where the first line's box reaches over its top, leaving its stem's foot outside", () => {
    const px = inkPage(600, 300, [...cap, ...text]);
    const over = [box(44, 97, 360, 115), ...boxes.slice(1)];
    const caps = dropCaps(px, over, inkOutsideBoxes(px, over));
    expect(caps).toHaveLength(1);
    expect(caps[0]!.cap).toEqual(box(40, 100, 82, 152));
    expect(caps[0]!.line).toBe(0);
  });

  it("takes a box the detector put round the letter alone, and says which", () => {
    const px = inkPage(600, 300, [...cap, ...text]);
    const own = [box(34, 94, 88, 158), ...boxes];
    const caps = dropCaps(px, own, inkOutsideBoxes(px, own));
    expect(caps).toHaveLength(1);
    expect(caps[0]!.own).toBe(0);
    expect(caps[0]!.line).toBe(1);
  });

  it("takes a number of two figures set large as one, and the figures of a box tighter than their ink", () => {
    // two figures 20 px wide and 52 high ("L"-shaped: a stem and a foot), 6 apart
    const figures: Rect[] = [40, 66].flatMap((x): Rect[] => [
      [x, 100, x + 6, 152],
      [x, 146, x + 20, 152],
    ]);
    const px = inkPage(600, 300, [...figures, ...text]);
    const caps = dropCaps(px, boxes, inkOutsideBoxes(px, boxes));
    expect(caps).toHaveLength(1);
    expect(caps[0]!.cap).toEqual(box(40, 100, 86, 152));
    // the detector's box round them stops short of their ink's top and foot (1.3 line heights of their 2.9)
    const tight = [box(38, 110, 88, 134), ...boxes];
    const own = dropCaps(px, tight, inkOutsideBoxes(px, tight));
    expect(own).toHaveLength(1);
    expect(own[0]!.cap).toEqual(box(40, 100, 86, 152));
    expect(own[0]!.own).toBe(0);
  });

  it("leaves a tall mark level with a paragraph's middle, beside one line, of thin rules, filled, or wider than a letter", () => {
    // a figure's mark beside the second and third lines (the first set in as far above them)
    const low = inkPage(600, 300, [...tee(40, 122, 52), ...text]);
    expect(dropCaps(low, boxes, inkOutsideBoxes(low, boxes))).toEqual([]);
    // and beside the middle of a paragraph's lines, none level with its top
    const middle = inkPage(600, 300, [...tee(40, 110, 52), ...text]);
    expect(dropCaps(middle, boxes, inkOutsideBoxes(middle, boxes))).toEqual([]);
    // one line beside it
    const one = inkPage(600, 300, [...cap, ...line(90, 100, 30)]);
    const single = [lineBox(90, 100, 30), lineBox(40, 200, 36)];
    expect(dropCaps(one, single, inkOutsideBoxes(one, single))).toEqual([]);
    // the thin rules of a frame ("[" joined into a tall piece across two rows), which the recogniser read as "E"
    const rules: Rect[] = [
      [40, 100, 41, 152],
      [40, 100, 80, 101],
      [40, 118, 80, 119],
      [40, 151, 80, 152],
    ];
    const frame = inkPage(600, 300, [...rules, ...text]);
    expect(dropCaps(frame, boxes, inkOutsideBoxes(frame, boxes))).toEqual([]);
    // a filled block (an icon's disc, a photograph's dark square)
    const block = inkPage(600, 300, [[40, 100, 82, 152], ...text]);
    expect(dropCaps(block, boxes, inkOutsideBoxes(block, boxes))).toEqual([]);
    // a picture's strip, far wider than tall
    const strip = inkPage(600, 300, [[0, 100, 88, 140], ...text]);
    expect(dropCaps(strip, boxes, inkOutsideBoxes(strip, boxes))).toEqual([]);
  });
});

describe("withDropCap", () => {
  const cap = box(40, 100, 82, 152);
  const lineBoxOf = lineBox(90, 100, 30);
  const px = inkPage(600, 300, [...tee(40, 100, 52), ...line(90, 100, 30), ...line(90, 120, 30)]);
  const before = Buffer.from(px.data);
  const set = withDropCap(px, cap, lineBoxOf)!;

  const dark = (p: typeof px, x: number, y: number) => p.data[(y * p.width + x) * 3]! < 128;
  it("clears the letter and sets it again before the line's first ink, its capitals' height on its baseline", () => {
    expect(set).toBeDefined();
    // (the cap's stem stood at x 59-64 from y 100 to 152: cleared below the first line)
    for (let y = 120; y < 152; y++) expect(dark(set.page, 61, y)).toBe(false);
    // the letter now stands in the line's rows (100-112: its ascenders' top to its baseline), ending before x 90
    const inkAt = (x0: number, x1: number, y0: number, y1: number) => {
      let n = 0;
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) n += dark(set.page, x, y) ? 1 : 0;
      return n;
    };
    expect(inkAt(70, 90, 100, 112)).toBeGreaterThan(10);
    expect(inkAt(0, 90, 112, 300)).toBe(0);
    expect(inkAt(0, 90, 0, 99)).toBe(0);
    // scaled to 12 px high, 10 wide: it starts about 11 px before the line's first ink
    expect(set.box.xMin).toBeLessThan(80);
    expect(set.box.xMin).toBeGreaterThan(70);
    expect(set.box.yMin).toBe(lineBoxOf.yMin);
    // the page given is left as it was
    expect(px.data.equals(before)).toBe(true);
  });

  it("gives nothing where the line shows no ink", () => {
    expect(withDropCap(inkPage(600, 300, tee(40, 100, 52)), cap, lineBoxOf)).toBeUndefined();
  });
});

describe("capAlone", () => {
  it("is the letter's pixels on white, without the lines beside it", () => {
    const px = inkPage(600, 300, [...tee(40, 100, 52), ...line(84, 100, 30)]);
    const alone = capAlone(px, box(40, 100, 82, 152));
    // 13 px of white about 42 x 52
    expect([alone.width, alone.height]).toEqual([68, 78]);
    let ink = 0;
    for (let i = 0; i < alone.width * alone.height; i++) ink += alone.data[i * 3]! < 128 ? 1 : 0;
    // the arm (42 x 5) and the stem (5 x 47), nothing of the line's glyphs at x 84
    expect(ink).toBe(42 * 5 + 5 * 47);
  });
});
