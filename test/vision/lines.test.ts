// The line-unit front end's pure parts: detector post-processing, reading order, crops, CTC slots, geometry.
import { describe, expect, it } from "vitest";
import { flatCrop, inkCrop } from "../../src/vision/line-crop.js";
import { resizeBicubic } from "../../src/vision/resample.js";
import {
  boxesFromMap,
  collapseSlots,
  detectorInput,
  gapBoxes,
  lineParts,
  marginMarks,
  orderLines,
  pageUnits,
  parseDictionary,
  recogniserChunk,
  recogniserBatch,
  recogniserCrop,
  SLOT_EXTRA,
  slotGaps,
  unitGeometry,
  type LineBox,
  type LineModels,
  type LineUnit,
  type Tensor,
} from "../../src/vision/lines.js";
import { inkPage, LINES_CFG, middleRow, recognised } from "./helpers.js";

const CFG = LINES_CFG;

function box(xMin: number, yMin: number, xMax: number, yMax: number): LineBox {
  return { xMin, yMin, xMax, yMax, score: 1 };
}

describe("boxesFromMap", () => {
  const w = 64,
    h = 32;
  const map = new Float32Array(w * h);
  const fill = (x0: number, y0: number, x1: number, y1: number, v: number) => {
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) map[y * w + x] = v;
  };
  fill(4, 4, 40, 10, 0.9); // a text line
  fill(4, 20, 20, 26, 0.4); // above the binarisation threshold, below the box threshold: dropped
  fill(50, 20, 52, 30, 0.9); // 2 px wide: below the minimum size
  map[0] = 0.95; // a lone pixel

  it("finds connected regions, keeps confident ones and grows them by the unclip distance, in page pixels", () => {
    const boxes = boxesFromMap({ data: map, dims: [1, 1, h, w] }, 2, 2, CFG, 1000, 1000);
    expect(boxes).toHaveLength(1);
    const b = boxes[0]!;
    // region 36 x 6 px: distance = 36*6*1.5 / (2*(36+6)) = 3.857 (map px) → ×2 page px per map px
    const d = (36 * 6 * 1.5) / (2 * 42);
    expect(b.xMin).toBeCloseTo((4 - d) * 2, 5);
    expect(b.xMax).toBeCloseTo((40 + d) * 2, 5);
    expect(b.yMin).toBeCloseTo((4 - d) * 2, 5);
    expect(b.yMax).toBeCloseTo((10 + d) * 2, 5);
    expect(b.score).toBeCloseTo(0.9, 5);
  });

  it("clips grown boxes to the page", () => {
    const boxes = boxesFromMap({ data: map, dims: [1, 1, h, w] }, 1, 1, CFG, 30, 12);
    expect(boxes[0]!.xMax).toBe(30);
    expect(boxes[0]!.yMax).toBe(12);
  });
});

describe("orderLines", () => {
  it("reads a two-column page column by column under a full-width title", () => {
    const title = box(10, 10, 590, 40);
    const left = [box(10, 60, 280, 75), box(10, 80, 280, 95), box(10, 100, 280, 115)];
    const right = [box(320, 60, 590, 75), box(320, 80, 590, 95)];
    const ordered = orderLines([right[1]!, left[2]!, title, right[0]!, left[0]!, left[1]!]);
    expect(ordered).toEqual([title, ...left, ...right]);
  });

  it("reads a long left column before a short right one, even where the band below the short one is wide", () => {
    const left = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => box(10, 60 + 20 * i + (i >= 5 ? 30 : 0), 280, 75 + 20 * i + (i >= 5 ? 30 : 0)));
    const right = [0, 1, 2].map((i) => box(300, 60 + 20 * i, 590, 75 + 20 * i));
    expect(orderLines([...right, ...left].reverse())).toEqual([...left, ...right]);
  });

  it("reads columns one after the other under a full-width header and above a page number set in the gutter (synthetic test doc-00007)", () => {
    // the detector's boxes of that page: header, left column (three sections), a short right column, page number
    const header = box(131, 136, 778, 165);
    const left = [
      [213, 244],
      [251, 285],
      [279, 312],
      [308, 342],
      [364, 400],
      [405, 435],
      [575, 608],
      [611, 649],
      [711, 743],
      [748, 782],
      [835, 877],
      [1391, 1426],
      [1432, 1461],
    ].map(([y0, y1], i) => box(131, y0!, i % 3 ? 590 : 300, y1!));
    const right = [
      [192, 222],
      [220, 249],
      [247, 277],
      [275, 304],
      [299, 333],
      [330, 359],
    ].map(([y0, y1]) => box(649, y0!, 1140, y1!));
    const page = box(634, 1503, 643, 1515);
    expect(orderLines([page, ...right, ...left, header])).toEqual([header, ...left, ...right, page]);
  });

  it("does not peel off the end of a column as if it were a footer (a header, no footer, a short right column)", () => {
    const header = box(10, 10, 590, 40);
    const left = [0, 1, 2, 3, 4, 5].map((i) => box(10, 60 + 20 * i + (i >= 4 ? 40 : 0), 280, 75 + 20 * i + (i >= 4 ? 40 : 0)));
    const right = [0, 1].map((i) => box(320, 60 + 20 * i, 590, 75 + 20 * i));
    expect(orderLines([...right, ...left, header].reverse())).toEqual([header, ...left, ...right]);
  });

  it("reads two columns of aligned prose lines column by column, not across", () => {
    const left = [0, 1, 2, 3].map((i) => box(10, 60 + 20 * i, 280, 75 + 20 * i));
    const right = [0, 1, 2, 3].map((i) => box(300, 60 + 20 * i, 590, 75 + 20 * i));
    expect(orderLines([...right, ...left])).toEqual([...left, ...right]);
  });

  it("reads a table row by row, cells left to right, under a paragraph", () => {
    const para = [box(10, 10, 590, 25), box(10, 30, 560, 45)];
    // ragged cells with a wide band between the columns, rows 32 apart (the page's own table layout)
    const cells = [
      [40, 120],
      [60, 200],
      [30, 90],
    ].map(([a, b], r) => [box(14, 70 + 32 * r, 14 + a!, 90 + 32 * r), box(320, 70 + 32 * r, 320 + b!, 90 + 32 * r)]);
    const ordered = orderLines([...cells.map((c) => c[1]!), ...para, ...cells.map((c) => c[0]!)]);
    expect(ordered).toEqual([...para, ...cells.flat()]);
  });

  it("reads a table whose rows touch (tight leading, dilated boxes) row by row", () => {
    const cells = [0, 1, 2, 3].map((r) => [
      box(10, 70 + 19 * r, 60 + 10 * (r % 2), 91 + 19 * r),
      box(130, 70 + 19 * r, 160, 91 + 19 * r),
      box(250, 71 + 19 * r, 300 - 20 * (r % 2), 90 + 19 * r),
    ]);
    expect(orderLines([...cells.flat()].reverse())).toEqual(cells.flat());
  });

  it("reads a section number before its title when their dilated boxes overlap (from the real R manual's 3.2.3 headings)", () => {
    // "6.7    Notes": the title's box starts just left of where the number's box ends, a little higher
    const number = box(130, 483, 184, 516),
      title = box(166, 482, 336, 521);
    const para = [box(130, 530, 1100, 560), box(130, 565, 1100, 595)];
    expect(orderLines([title, para[1]!, number, para[0]!])).toEqual([number, title, ...para]);
  });

  it("reads a table row by row when its last column is narrow and filled by its cells (synthetic test doc-00057)", () => {
    // a heading, a 2 x 4 table of one-word cells ("The options which apply / to the lastlog command"), a paragraph
    const heading = box(62, 514, 165, 539),
      para = box(60, 627, 378, 657);
    const cells = [
      [box(62, 546, 103, 570), box(156, 548, 225, 572), box(250, 547, 307, 570), box(342, 548, 395, 572)],
      [box(64, 575, 88, 595), box(155, 573, 193, 595), box(249, 573, 313, 599), box(344, 576, 430, 595)],
    ];
    expect(orderLines([para, ...cells.flat().reverse(), heading])).toEqual([heading, ...cells.flat(), para]);
  });

  it('reads a table row by row when the detector missed a cell (a lone "-"; synthetic test doc-00049 p1)', () => {
    // the page's boxes from its title to the next paragraph: "Name", then gcloud | alpha, container | fleet,
    // memberships | - (the dash is never detected), "Synopsis" and a full-width line
    const title = box(141, 251, 976, 305),
      heading = box(137, 393, 247, 438);
    const left = [box(142, 451, 233, 494), box(146, 500, 259, 534), box(140, 543, 303, 581)];
    const right = [box(619, 451, 694, 493), box(623, 499, 683, 533)];
    const after = [box(140, 639, 290, 685), box(141, 693, 976, 734)];
    expect(orderLines([...after, ...right, ...left, heading, title].reverse())).toEqual([
      title,
      heading,
      left[0],
      right[0],
      left[1],
      right[1],
      left[2],
      ...after,
    ]);
  });

  it("reads a small table set beside the top of a long column after the column (synthetic test-unseen doc-00034)", () => {
    // a header, a left column of headings and prose lines, and a 3 x 2 table of one-word cells at the top right
    const header = box(92, 95, 194, 121),
      title = box(93, 169, 238, 199);
    const column = [
      box(91, 218, 160, 250),
      box(93, 269, 212, 299),
      box(93, 318, 243, 349),
      ...[0, 1, 2, 3, 4, 5].map((i) => box(90, 354 + 27 * i, 586, 381 + 27 * i)),
      box(92, 516, 178, 540),
    ];
    const table = [
      box(634, 146, 687, 173),
      box(803, 147, 878, 176),
      box(972, 147, 1055, 176),
      box(633, 175, 690, 205),
      box(801, 175, 865, 203),
      box(974, 178, 994, 200),
    ];
    const ordered = orderLines([...table, ...column, title, header].reverse());
    // the column is read whole before the table (the table's own cell order is not settled here: its first column,
    // set apart from the others by the band, reads before them)
    expect(ordered.slice(0, 2 + column.length)).toEqual([header, title, ...column]);
    expect(new Set(ordered.slice(2 + column.length))).toEqual(new Set(table));
  });

  it("reads two prose columns column by column even when one is a short sidebar level with the other's first lines", () => {
    const left = [0, 1, 2, 3, 4, 5].map((i) => box(10, 60 + 20 * i, 400, 75 + 20 * i));
    const right = [0, 1].map((i) => box(430, 60 + 20 * i, 590, 75 + 20 * i));
    expect(orderLines([...right, ...left])).toEqual([...left, ...right]);
  });

  it("reads a table of equal-width cells row by row when the band between them is wide", () => {
    const cells = [0, 1, 2].map((r) => [box(10, 70 + 30 * r, 60, 88 + 30 * r), box(300, 70 + 30 * r, 350, 88 + 30 * r)]);
    expect(orderLines(cells.flatMap((c) => [c[1]!, c[0]!]).reverse())).toEqual(cells.flat());
  });
});

describe("marginMarks", () => {
  // pages of dark rectangles (helpers.ts inkPage): text lines the detector found, and what lies outside them
  const lines = [box(50, 100, 550, 130), box(50, 140, 550, 170)]; // detected lines, 30 px high

  it("finds a lone page number below the text, grown like a detected box, and glyphs of one number as one mark", () => {
    const px = inkPage(600, 400, [
      [60, 110, 540, 122],
      [60, 150, 540, 162],
      [296, 350, 302, 366],
      [400, 350, 406, 366],
      [409, 350, 415, 366],
    ]);
    const marks = marginMarks(px, lines, 1.5);
    expect(marks).toHaveLength(2);
    const [one, twelve] = marks.sort((a, b) => a.xMin - b.xMin);
    expect(one!.xMin).toBeLessThan(296);
    expect(one!.xMax).toBeGreaterThan(302);
    expect(one!.yMin).toBeLessThan(350);
    expect(one!.yMax).toBeGreaterThan(366);
    expect(twelve!.xMin).toBeLessThan(400);
    expect(twelve!.xMax).toBeGreaterThan(415);
  });

  it("ignores specks, ink beside the text lines, rules wider than a few words, tall figures and the page's edge", () => {
    const px = inkPage(600, 400, [
      [300, 360, 302, 361], // a 2-pixel speck
      [560, 140, 566, 156], // beside a line, not beyond the outermost ones
      [60, 300, 540, 302], // a rule
      [100, 200, 160, 300], // a figure taller than a line
      [0, 380, 600, 400], // a scan's dark border
    ]);
    expect(marginMarks(px, lines, 1.5)).toEqual([]);
  });

  it("finds a folio above the text too, and nothing when no line was detected", () => {
    const px = inkPage(600, 400, [[290, 40, 296, 56]]);
    expect(marginMarks(px, lines, 1.5)).toHaveLength(1);
    expect(marginMarks(px, [], 1.5)).toEqual([]);
  });
});

describe("collapseSlots", () => {
  const dict = parseDictionary("a\nb\n");
  it("parses the recogniser's classes: blank, the dictionary, then space", () => {
    expect(dict).toEqual(["", "a", "b", " "]);
  });

  it("turns runs of one class into slots, splits repeats at blanks, and records gaps, runs and peaks", () => {
    // steps: a a _ a b _ _ space b  (classes: blank, a, b, space), 2-wide features = the step index
    const best = [1, 1, 0, 1, 2, 0, 0, 3, 2];
    const peak = best.map((_, t) => 0.5 + t / 100);
    const width = 2;
    const feats = new Float32Array(best.length * width);
    best.forEach((_, t) => {
      feats[t * width] = t;
      feats[t * width + 1] = 1;
    });
    const r = collapseSlots(best, peak, feats, best.length, width, dict);
    expect(r.text).toBe("aab b");
    expect(Array.from(r.ids)).toEqual([1, 1, 2, 3, 2]);
    const stride = width + SLOT_EXTRA;
    expect(r.features).toHaveLength(5 * stride);
    // first slot: steps 0-1 → mean feature 0.5, no gap, run 2/8, peak at step 1, centre 1/9
    expect(Array.from(r.features.subarray(0, stride))).toEqual([0.5, 1, 0, 2 / 8, 0.51, 1 / 9].map((v) => expect.closeTo(v, 6)));
    // the space slot (step 7) follows two blank steps after the slot ending at step 5
    expect(r.features[3 * stride + width]).toBeCloseTo(2 / 8, 6);
    // each slot's centre in steps (where the diacritics model's window is cut): runs [0,2) [3,4) [4,5) [7,8) [8,9)
    expect(Array.from(r.centres)).toEqual([1, 3.5, 4.5, 7.5, 8.5]);
    // slotGaps reads each slot's blank steps back (the merge keeps a space between two digits only over a gap)
    expect(Array.from(slotGaps(r.ids, r.features, stride))).toEqual([0, 1, 0, 2, 0]);
  });

  it("gives an empty line no slots", () => {
    const r = collapseSlots([0, 0, 0], [1, 1, 1], new Float32Array(3 * 2), 3, 2, dict);
    expect(r.ids).toHaveLength(0);
    expect(r.text).toBe("");
  });
});

describe("lineParts", () => {
  // classes: blank, a, b, space; a line's slots spread evenly along its box, 2 features + the extras each
  const dict = parseDictionary("a\nb\n");
  const width = 2;
  const stride = width + SLOT_EXTRA;
  function unit(text: string, extra: Partial<LineUnit> = {}): LineUnit {
    const chars = Array.from(text);
    const ids = Int32Array.from(chars, (c) => dict.indexOf(c));
    const features = new Float32Array(chars.length * stride);
    chars.forEach((_, s) => {
      features[s * stride] = s; // the slot's index, to follow it into its part
      features[(s + 1) * stride - 2] = 0.9; // peak
      features[(s + 1) * stride - 1] = (s + 0.5) / chars.length; // centre along the line
    });
    const box = { xMin: 100, xMax: 1100, yMin: 200, yMax: 220, score: 1 };
    // a line 20 px high where the page's lines are 20 px: height entry 0
    return {
      box,
      geometry: unitGeometry(box, { xMin: 100, xMax: 1100, yMin: 170, yMax: 190 }, 1200, 1600, 20),
      ids,
      features,
      stride,
      text,
      ...extra,
    };
  }
  const words = (n: number) => Array.from({ length: n }, (_, k) => (k % 2 ? "bab" : "ab")).join(" ");

  it("leaves a line within the cap alone", () => {
    const u = unit(words(20));
    expect(lineParts(u, 128, dict)).toEqual([u]);
  });

  it("cuts a longer line at the space nearest its middle, each part within the cap, its slots and text its own", () => {
    const u = unit(words(56)); // 167 slots
    expect(u.ids.length).toBeGreaterThan(128);
    const parts = lineParts(u, 128, dict);
    expect(parts).toHaveLength(2);
    for (const p of parts) {
      expect(p.ids.length).toBeLessThanOrEqual(128);
      expect(Array.from(p.text)).toHaveLength(p.ids.length);
      expect(p.features).toHaveLength(p.ids.length * stride);
    }
    // the space cut at is left out; the text is the line's
    expect(parts.map((p) => p.text).join(" ")).toBe(u.text);
    const cut = parts[0]!.ids.length;
    expect(u.text[cut]).toBe(" ");
    expect(Math.abs(cut - u.ids.length / 2)).toBeLessThanOrEqual(2);
    // each slot's features go with it, its centre measured along its part's box
    expect(parts[1]!.features[0]).toBe(cut + 1);
    for (const p of parts) {
      const centres = Array.from(p.ids, (_, s) => p.features[(s + 1) * stride - 1]!);
      expect(Math.min(...centres)).toBeGreaterThan(0);
      expect(Math.max(...centres)).toBeLessThan(1);
      // …where the slot stands on the page as it did on the line
      const x = (part: LineUnit, s: number) => part.box.xMin + part.features[(s + 1) * stride - 1]! * (part.box.xMax - part.box.xMin);
      const s0 = p === parts[0] ? 0 : cut + 1;
      p.ids.forEach((_, s) => expect(x(p, s)).toBeCloseTo(x(u, s0 + s), 6));
    }
    // the parts' boxes tile the line's; the second stands on the row of the first, indented from it
    expect(parts[0]!.box.xMin).toBe(100);
    expect(parts[1]!.box.xMax).toBe(1100);
    expect(parts[0]!.box.xMax).toBe(parts[1]!.box.xMin);
    expect(parts[1]!.box).toMatchObject({ yMin: 200, yMax: 220 });
    expect(parts[0]!.geometry[5]).toBe(u.geometry[5]);
    expect(parts[1]!.geometry[5]).toBe(-1);
    expect(parts[1]!.geometry[0]).toBeCloseTo(parts[1]!.box.xMin / 1200, 6);
    expect(parts[1]!.geometry[6]).toBeGreaterThan(0);
  });

  it("cuts a line of more than twice the cap in three, and one without spaces at its middle", () => {
    const three = lineParts(unit(words(100)), 128, dict);
    expect(three).toHaveLength(3);
    expect(three.every((p) => p.ids.length <= 128 && !p.text.startsWith(" ") && !p.text.endsWith(" "))).toBe(true);
    const solid = unit("ab".repeat(80));
    const halves = lineParts(solid, 128, dict);
    expect(halves.map((p) => p.ids.length)).toEqual([80, 80]);
    expect(halves.map((p) => p.text).join("")).toBe(solid.text);
  });

  it("cuts a crowded line's second reading at its own space nearest the cut", () => {
    // read again widened: the evidence (text, peaks, gaps) has characters of its own, one more here
    const u = unit(words(56));
    const text = `a${u.text}`;
    const n = Array.from(text).length;
    const crowded = { ...u, text, peaks: new Float32Array(n).fill(0.8), gaps: new Float32Array(n) };
    const parts = lineParts(crowded, 128, dict);
    expect(parts.map((p) => p.text).join(" ")).toBe(text);
    for (const p of parts) expect(p.peaks).toHaveLength(Array.from(p.text).length);
  });
});

describe("crops and geometry", () => {
  const page = { width: 100, height: 50, data: Buffer.alloc(100 * 50 * 3, 255) };
  for (let x = 20; x < 60; x++) for (let y = 10; y < 20; y++) page.data.fill(0, (y * 100 + x) * 3, (y * 100 + x) * 3 + 3);

  it("scales a line crop to the recogniser height keeping its aspect, normalised to [-1, 1]", () => {
    const c = recogniserCrop(page, { xMin: 20, xMax: 60, yMin: 10, yMax: 20 }, 48, 3200);
    expect(c.width).toBe(192);
    // a grey page's crop is one channel of bytes; its batch is three planes of floats
    expect(c).toMatchObject({ height: 48, channels: 1 });
    expect(c.pixels).toHaveLength(48 * 192);
    const data = recogniserBatch([c], 48, 192).data;
    expect(data).toHaveLength(3 * 48 * 192);
    expect(data[24 * 192 + 96]).toBeCloseTo(-1, 2); // black inside
    expect(data[2 * 48 * 192 + 24 * 192 + 96]).toBeCloseTo(-1, 2);
    expect(c.width).toBe(Math.round((40 * 48) / 10));
  });

  it("gives the glyph measures ink dark on paper: a grey crop as it is, colour as luminance, light type turned over", () => {
    const rgbCrop = (ground: number[], type: number[]) => {
      // a 40-column crop, its type in columns 10-15 on rows 20-30
      const pixels = new Uint8Array(40 * 48 * 3);
      for (let i = 0; i < 40 * 48; i++) {
        const inType = i % 40 >= 10 && i % 40 < 16 && i / 40 >= 20 && i / 40 < 30;
        pixels.set(inType ? type : ground, 3 * i);
      }
      return { width: 40, height: 48, channels: 3 as const, pixels };
    };
    const at = (c: { width: number; pixels: Uint8Array }, x: number, y: number) => c.pixels[y * c.width + x]!;
    // a grey crop of dark type is itself
    const grey = recogniserCrop(page, { xMin: 20, xMax: 60, yMin: 10, yMax: 20 }, 48, 3200);
    expect(inkCrop(grey)).toBe(grey);
    // red type on white: its first channel (red) shows nothing, its luminance shows the type
    const red = inkCrop(rgbCrop([255, 255, 255], [200, 30, 30]));
    expect(red.channels).toBe(1);
    expect(at(red, 12, 25)).toBeLessThan(100);
    expect(at(red, 30, 5)).toBe(255);
    // white type on a red band (a magazine's box) and on black (an inverted scan): dark type on white paper
    for (const ground of [
      [198, 40, 40],
      [0, 0, 0],
      [30, 30, 30],
    ]) {
      const turned = inkCrop(rgbCrop(ground, [255, 255, 255]));
      expect(at(turned, 12, 25)).toBe(0);
      expect(at(turned, 30, 5)).toBe(255);
    }
    // a box over flat colour shows no glyph; one over type, even pale type, does
    expect(flatCrop(rgbCrop([26, 35, 126], [26, 35, 126]))).toBe(true);
    expect(flatCrop(rgbCrop([26, 35, 126], [255, 255, 255]))).toBe(false);
    expect(flatCrop(rgbCrop([255, 255, 255], [200, 200, 200]))).toBe(false);
    expect(flatCrop(rgbCrop([255, 255, 255], [255, 255, 120]))).toBe(false);
  });

  it("crops a grey line as its colour form would be cropped, value for value", () => {
    // grey text with soft edges (every value), and the same page with one tinted pixel (the RGB path)
    const grey = { width: 120, height: 40, data: Buffer.alloc(120 * 40 * 3) };
    for (let i = 0; i < 120 * 40; i++) grey.data.fill((i * 37) % 256, i * 3, i * 3 + 3);
    const box = { xMin: 7, xMax: 113, yMin: 5, yMax: 33 };
    const tinted = { ...grey, data: Buffer.from(grey.data) };
    tinted.data[(30 * 120 + 2) * 3] = 1; // outside the box: the box is still grey
    const a = recogniserCrop(grey, box, 48, 3200);
    const b = recogniserCrop(tinted, box, 48, 3200);
    expect(b).toEqual(a);
    const batch = (crop: typeof a) => recogniserBatch([crop], 48, crop.width).data;
    // the reference: resizeBicubic of the RGB crop, normalised channel by channel
    const crop = new Uint8Array(106 * 28 * 3);
    for (let y = 0; y < 28; y++) crop.set(grey.data.subarray(((5 + y) * 120 + 7) * 3, ((5 + y) * 120 + 113) * 3), y * 106 * 3);
    const px = resizeBicubic(crop, 106, 28, a.width, 48);
    const ref = new Float32Array(3 * a.width * 48);
    for (let c = 0; c < 3; c++) for (let i = 0; i < a.width * 48; i++) ref[c * a.width * 48 + i] = (px[i * 3 + c]! / 255 - 0.5) / 0.5;
    expect(batch(a)).toEqual(ref);
    // a colour crop keeps its channels apart
    const colour = { ...grey, data: Buffer.from(grey.data) };
    colour.data[(10 * 120 + 50) * 3 + 2] = 0;
    const c = recogniserCrop(colour, box, 48, 3200);
    expect(c.channels).toBe(3);
    expect(batch(c).subarray(0, a.width * 48)).not.toEqual(batch(c).subarray(2 * a.width * 48));
    // …and is the reference where its pixels are grey: only the tinted pixel's neighbourhood differs
    expect(batch(c).subarray(0, a.width * 48)).toEqual(ref.subarray(0, a.width * 48));
    // a crop padded to a wider batch: its columns, then zeros
    const wide = recogniserBatch([a, c], 48, a.width + 16).data;
    const row = (j: number, ch: number, r: number) =>
      wide.subarray(((3 * j + ch) * 48 + r) * (a.width + 16), ((3 * j + ch) * 48 + r + 1) * (a.width + 16));
    expect(row(0, 1, 20).subarray(0, a.width)).toEqual(ref.subarray((48 + 20) * a.width, (48 + 21) * a.width));
    expect(Array.from(row(0, 2, 47).subarray(a.width))).toEqual(new Array(16).fill(0));
    expect(row(1, 2, 5).subarray(0, a.width)).toEqual(batch(c).subarray((96 + 5) * a.width, (96 + 6) * a.width));
  });

  it("caps very long lines at the maximum width", () => {
    expect(recogniserCrop(page, { xMin: 0, xMax: 100, yMin: 10, yMax: 11 }, 48, 640).width).toBe(640);
  });

  it("prepares the detector input with sides that are multiples of 32 and ImageNet normalisation", () => {
    const d = detectorInput({ width: 1000, height: 1400, data: Buffer.alloc(1000 * 1400 * 3, 255) }, 960);
    expect(d.input.dims).toEqual([1, 3, 960, 672]); // 1000·960/1400 = 686 → 672
    expect(d.input.data[0]).toBeCloseTo((1 - 0.485) / 0.229, 3);
    expect(d.scaleY).toBeCloseTo(1400 / 960, 6);
    // a small crop (a table at screen resolution) is scaled up, twice its size at most
    const small = detectorInput({ width: 238, height: 59, data: Buffer.alloc(238 * 59 * 3, 255) }, 960);
    expect(small.input.dims).toEqual([1, 3, 128, 480]); // 476 → 480, 118 → 128
    expect(small.scaleX).toBeCloseTo(238 / 480, 6);
    const mid = detectorInput({ width: 600, height: 800, data: Buffer.alloc(600 * 800 * 3, 255) }, 960);
    expect(mid.input.dims).toEqual([1, 3, 960, 736]); // 600·1.2 = 720 → 736
  });

  it("describes a line by its box, height and gap in line heights, indent and aspect", () => {
    const g = unitGeometry({ xMin: 30, xMax: 90, yMin: 30, yMax: 40 }, { xMin: 10, xMax: 90, yMin: 10, yMax: 20 }, 100, 50, 10);
    expect(Array.from(g)).toEqual(
      [0.3, 0.6, 0.9, 0.8, 0, 1, 0.5, expect.closeTo(Math.log(6) / 4, 6)].map((v) => (typeof v === "number" ? expect.closeTo(v, 6) : v)),
    );
    expect(unitGeometry({ xMin: 0, xMax: 10, yMin: 0, yMax: 10 }, undefined, 100, 100, 10)[5]).toBe(-4);
  });
});

describe("pages of very small text", () => {
  // a white page 480 x 320 with 12 detected lines (page pixels), their detected cores this high (the detector's
  // regions are the text shrunk; its boxes grow them back by the unclip ratio)
  const page = { width: 480, height: 320, data: Buffer.alloc(480 * 320 * 3, 255) };
  // (a dark speck on each line: a box over flat paper holds nothing, and is dropped)
  for (let k = 0; k < 12; k++) page.data.fill(0, ((11 + 25 * k) * 480 + 100) * 3, ((11 + 25 * k) * 480 + 102) * 3);
  const models = (lineHeight: number, calls: { detect: number[][]; crops: number }) => ({
    detect: async (t: Tensor) => {
      const [, , h, w] = t.dims as number[];
      calls.detect.push([h!, w!]);
      // the lines where they lie on the page, whatever scale the detector sees it at
      const scale = w! / 480;
      const data = new Float32Array(h! * w!);
      for (let k = 0; k < 12; k++)
        for (let y = Math.round((10 + 25 * k) * scale); y < Math.round((10 + 25 * k + lineHeight) * scale); y++)
          data.fill(0.9, y * w! + Math.round(20 * scale), y * w! + Math.round(300 * scale));
      return { data, dims: [1, 1, h!, w!] };
    },
    recognise: async (t: Tensor) => {
      const [n, , , width] = t.dims as number[];
      calls.crops += n!;
      const steps = width! / 8;
      return {
        best: { data: new Float32Array(n! * steps).fill(1), dims: [n!, steps] },
        peak: { data: new Float32Array(n! * steps).fill(0.9), dims: [n!, steps] },
        features: { data: new Float32Array(n! * steps * 4), dims: [n!, steps, 4] },
      };
    },
  });

  it("reads a page whose lines are about 10 px high grown twice over, and gives its boxes in the page's pixels", async () => {
    const calls = { detect: [] as number[][], crops: 0 };
    const { units } = await pageUnits(page, models(4, calls), CFG, ["", "a", " "]);
    // detected once as given, then again grown (the detector's input is the same size: its limit is 960)
    expect(calls.detect).toHaveLength(2);
    expect(units).toHaveLength(12);
    expect(calls.crops).toBe(12);
    for (const [k, u] of units.entries()) {
      expect(u.box.xMax).toBeLessThanOrEqual(480);
      expect(Math.abs((u.box.yMin + u.box.yMax) / 2 - (10 + 25 * k + 2))).toBeLessThan(1.5);
      expect(u.box.yMax - u.box.yMin).toBeLessThan(14);
      expect(u.box.xMax - u.box.xMin).toBeGreaterThan(270);
      expect(u.box.xMax - u.box.xMin).toBeLessThan(300);
    }
  });

  it("reads a page of text of ordinary size once", async () => {
    const calls = { detect: [] as number[][], crops: 0 };
    await pageUnits(page, models(16, calls), CFG, ["", "a", " "]);
    expect(calls.detect).toHaveLength(1);
  });
});

describe("recogniser batches", () => {
  // a white page with 20 detected lines of widths 10…300 px (map = page: the page is under det_limit)
  const W = 960,
    H = 640;
  const page = { width: W, height: H, data: Buffer.alloc(W * H * 3, 255) };
  const lines = Array.from({ length: 20 }, (_, k) => ({ y: 8 + k * 30, width: 10 + Math.round((290 * ((k * 7) % 20)) / 19) }));
  // (a dark speck in each: a box over flat paper holds nothing, and is dropped)
  for (const l of lines) page.data.fill(0, ((l.y + 5) * W + 24) * 3, ((l.y + 5) * W + 26) * 3);
  const models = (calls: { n: number; width: number; content: number[] }[]): LineModels => ({
    detect: async (t: Tensor) => {
      const [, , h, w] = t.dims as number[];
      const data = new Float32Array(h! * w!);
      for (const l of lines) for (let y = l.y; y < l.y + 10; y++) data.fill(0.9, y * w! + 20, y * w! + 20 + l.width);
      return { data, dims: [1, 1, h!, w!] };
    },
    recognise: async (t: Tensor) => {
      const [n, , rh, width] = t.dims as number[];
      // a line's own width: its crop is white (1 after normalisation), its padding 0
      const content = Array.from({ length: n! }, (_, j) => {
        let c = 0;
        while (c < width! && t.data[j * 3 * rh! * width! + c] !== 0) c++;
        return c;
      });
      calls.push({ n: n!, width: width!, content });
      const steps = width! / 8,
        fw = 4;
      return {
        best: { data: new Float32Array(n! * steps).fill(1), dims: [n!, steps] },
        peak: { data: new Float32Array(n! * steps).fill(0.9), dims: [n!, steps] },
        features: { data: new Float32Array(n! * steps * fw), dims: [n!, steps, fw] },
      };
    },
  });

  it("holds one call to rec_max_width columns, with lines padded as in whole groups of rec_batch", async () => {
    const cfg = { ...CFG, rec_max_width: 2400 };
    const calls: { n: number; width: number; content: number[] }[] = [];
    const { units } = await pageUnits(page, models(calls), cfg, ["", "a", " "]);
    expect(units).toHaveLength(lines.length);
    expect(units.every((u) => u.ids.length === 1)).toBe(true);
    // every call's input fits in one maximum-width line's columns (was: 8 lines of the group's width, up to 8 × 528)
    for (const c of calls) expect(c.n * c.width).toBeLessThanOrEqual(cfg.rec_max_width);
    expect(Math.max(...calls.map((c) => c.n))).toBe(cfg.rec_batch);
    // padding (which the recogniser's features depend on) is unchanged: sorted by width, groups of rec_batch
    // lines, each line padded to its group's widest rounded up to 8
    const seen = calls.flatMap((c) => c.content.map((w) => ({ w, padded: c.width })));
    const widths = seen.map((s) => s.w);
    expect(widths).toEqual([...widths].sort((a, b) => a - b));
    seen.forEach((s, i) => {
      const group = widths.slice(i - (i % cfg.rec_batch), i - (i % cfg.rec_batch) + cfg.rec_batch);
      expect(s.padded).toBe(Math.ceil(Math.max(...group) / 8) * 8);
    });
    expect(new Set(calls.map((c) => c.width)).size).toBeLessThan(calls.length);
  });

  it("takes rec_batch narrow lines at once and one line when it is wider than rec_max_width allows two", () => {
    expect(recogniserChunk(100, { rec_batch: 8, rec_max_width: 3200 })).toBe(8);
    expect(recogniserChunk(800, { rec_batch: 8, rec_max_width: 3200 })).toBe(4);
    expect(recogniserChunk(1704, { rec_batch: 8, rec_max_width: 3200 })).toBe(1);
    expect(recogniserChunk(3200, { rec_batch: 8, rec_max_width: 3200 })).toBe(1);
  });
});

describe("crowded lines", () => {
  // a page with three detected lines 280 px wide, each of its own grey (the fake recogniser tells them by it); the
  // recogniser reads `density[line]` letters a step of a line's content (1: a crowded line), "a" and "b" in turn in
  // a first reading and "c" and "d" in a widened one, with peaks `peak(line, widened)`
  const W = 480,
    H = 160;
  const greys = [200, 150, 100];
  const data = Buffer.alloc(W * H * 3, 255);
  greys.forEach((g, k) => {
    for (let y = 10 + 50 * k - 6; y < 10 + 50 * k + 16; y++) data.fill(g, (y * W + 14) * 3, (y * W + 306) * 3);
  });
  const page = { width: W, height: H, data };
  const run = async (density: number[], peak: (line: number, widened: boolean) => number) => {
    const calls: { line: number; width: number }[][] = [];
    const models: LineModels = {
      detect: async (t: Tensor) => {
        const [, , h, w] = t.dims as number[];
        const map = new Float32Array(h! * w!);
        // (the detector sees the page scaled)
        const f = w! / W;
        for (let k = 0; k < 3; k++)
          for (let y = Math.round((10 + 50 * k) * f); y < Math.round((20 + 50 * k) * f); y++)
            map.fill(0.9, y * w! + Math.round(20 * f), y * w! + Math.round(300 * f));
        return { data: map, dims: [1, 1, h!, w!] };
      },
      recognise: async (t: Tensor) => {
        const [n, , , width] = t.dims as number[];
        const steps = width! / 8;
        const best = new Float32Array(n! * steps),
          pk = new Float32Array(n! * steps);
        const seen: { line: number; width: number }[] = [];
        for (let j = 0; j < n!; j++) {
          const { row, width: c } = middleRow(t, j);
          const v = row[c >> 1]!;
          const gap = (g: number) => Math.abs((g / 255 - 0.5) / 0.5 - v);
          const line = greys.reduce((best, g, k) => (gap(g) < gap(greys[best]!) ? k : best), 0);
          seen.push({ line, width: c });
          const widened = calls.length > 0;
          let letters = 0;
          for (let s = 0; s < Math.ceil(c / 8); s++)
            if (Math.floor((s + 1) * density[line]!) > Math.floor(s * density[line]!)) {
              best[j * steps + s] = (widened ? 3 : 1) + (letters++ % 2);
              pk[j * steps + s] = peak(line, widened);
            }
        }
        calls.push(seen);
        return recognised(best, pk, n!, steps);
      },
    };
    const { units } = await pageUnits(page, models, CFG, ["", "a", "b", "c", "d", " "]);
    return { units, calls };
  };

  it("reads a crowded line again widened and takes that reading as its evidence, the first staying the decoder's slots", async () => {
    // line 0 crowded (a letter every step), line 1 of ordinary density and sure, line 2 as dense and unsure
    const { units, calls } = await run([1, 0.55, 0.55], (line, widened) => (widened ? 0.95 : line === 2 ? 0.6 : 0.95));
    expect(units).toHaveLength(3);
    expect(calls).toHaveLength(2);
    const first = new Map(calls[0]!.map((c) => [c.line, c.width]));
    const again = new Map(calls[1]!.map((c) => [c.line, c.width]));
    // the crowded line and the unsure one, not the sure one of half the density
    expect([...again.keys()].sort()).toEqual([0, 2]);
    // widened at most 1.6 times (one letter a step: 2 times as many as SPREAD), 1.1 times at 0.55 a step
    expect(again.get(0)! / first.get(0)!).toBeCloseTo(1.6, 1);
    expect(again.get(2)! / first.get(2)!).toBeCloseTo(1.1, 1);
    const byLine = [0, 1, 2].map((k) => units.find((u) => Math.abs(u.box.yMin + (u.box.yMax - u.box.yMin) / 2 - (15 + 50 * k)) < 5)!);
    // line 0: the widened reading's text and peaks, the first reading's ids and features
    expect(byLine[0]!.text).toMatch(/^(cd)+c?$/);
    expect(byLine[0]!.peaks).toBeDefined();
    expect(byLine[0]!.peaks!.length).toBe(byLine[0]!.text.length);
    expect(Array.from(byLine[0]!.peaks!).every((p) => Math.abs(p - 0.95) < 1e-6)).toBe(true);
    expect(Array.from(byLine[0]!.ids).every((id) => id === 1 || id === 2)).toBe(true);
    expect(byLine[0]!.ids.length).toBe(Math.ceil(first.get(0)! / 8));
    expect(byLine[0]!.text.length).toBeGreaterThan(byLine[0]!.ids.length);
    expect(byLine[1]!.text).toMatch(/^(ab)+a?$/);
    expect(byLine[2]!.text).toMatch(/^(cd)+c?$/);
    expect(byLine[1]!.peaks).toBeUndefined();
    // the second reading's blank steps before each character, in the first reading's steps (the crop was widened
    // 1.1 times: one blank step reads as 1 / 1.1)
    expect(byLine[2]!.gaps).toHaveLength(byLine[2]!.text.length);
    const gaps = Array.from(byLine[2]!.gaps!).slice(1);
    expect(Math.max(...gaps)).toBeGreaterThan(0.8);
    expect(Math.max(...gaps)).toBeLessThan(0.99);
    expect(byLine[1]!.gaps).toBeUndefined();
  });

  it("keeps a line's first reading where the second is less sure", async () => {
    const { units, calls } = await run([1, 0.55, 0.55], (_, widened) => (widened ? 0.5 : 0.8));
    expect(calls).toHaveLength(2);
    for (const u of units) {
      expect(u.text).toMatch(/^(ab)+a?$/);
      expect(u.peaks).toBeUndefined();
    }
  });

  it("reads a page of sure lines of ordinary density once", async () => {
    const { calls } = await run([0.55, 0.55, 0.55], () => 0.95);
    expect(calls).toHaveLength(1);
  });
});

describe("gapBoxes", () => {
  const box = (xMin: number, xMax: number, yMin = 1000, yMax = 1028) => ({ xMin, xMax, yMin, yMax });
  it("finds a box read as nothing that reaches into its row's boxes on both sides", () => {
    // (the language probe's CMU Sans heading "10.4 Вставить": the detector's box over the space after its number,
    // 0.2 px short of the number's box)
    const heading = [box(159, 223.5, 996, 1024), box(223.7, 238.8, 1002, 1018), box(232, 364, 993, 1030)];
    expect(gapBoxes(heading, [{ text: "10.4" }, { text: "" }, { text: "BcTaBUTb" }])).toEqual([1]);
  });
  it("keeps a box read as something, one with a neighbour on one side only, and one apart from its neighbours", () => {
    const row = [box(100, 200), box(190, 230), box(220, 400)];
    expect(gapBoxes(row, [{ text: "one" }, { text: "-" }, { text: "two" }])).toEqual([]);
    expect(gapBoxes(row.slice(0, 2), [{ text: "one" }, { text: "" }])).toEqual([]);
    const apart = [box(100, 200), box(240, 260), box(300, 400)];
    expect(gapBoxes(apart, [{ text: "one" }, { text: "" }, { text: "two" }])).toEqual([]);
    // (nor a box on another row)
    const below = [box(100, 200), box(190, 230, 1040, 1068), box(220, 400)];
    expect(gapBoxes(below, [{ text: "one" }, { text: "" }, { text: "two" }])).toEqual([]);
  });
});
