// Reading order on real-looking multi-column pages: the detector's boxes of LaTeX pages rendered at 300 DPI
// (fixtures/layout, see PROVENANCE.md), ordered by orderLines, against the PDF's own text order.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PairOrderScorer, parsePairOrderModel } from "../../src/layout/learned.js";
import { softGutter, xyCut } from "../../src/layout/xycut.js";
import { XY_CUT_STAGE } from "../../src/layout/stage.js";
import { orderLines, type LineBox } from "../../src/vision/lines.js";

interface Fixture {
  source: string;
  width: number;
  height: number;
  boxes: [number, number, number, number][];
  /** the PDF's text runs: middle (page pixels) and place in the content stream */
  runs: [number, number, number][];
}

const load = (name: string): Fixture =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../fixtures/layout", `${name}.boxes.json`), "utf8"));
const boxes = (f: Fixture): LineBox[] => f.boxes.map(([xMin, yMin, xMax, yMax]) => ({ xMin, yMin, xMax, yMax, score: 1 }));

/** Successive lines of `ordered` that are successive in the PDF's order (a line's place: its first run's). */
function inOrder(ordered: readonly LineBox[], runs: Fixture["runs"]): { good: number; pairs: number } {
  const rank = ordered.map((b) => {
    let best: number | undefined;
    for (const [x, y, k] of runs)
      if (x >= b.xMin && x <= b.xMax && y >= b.yMin && y <= b.yMax && (best === undefined || k < best)) best = k;
    return best;
  });
  const known = ordered.map((_, i) => i).filter((i) => rank[i] !== undefined);
  const pos = new Map([...known].sort((a, b) => rank[a]! - rank[b]!).map((i, k) => [i, k]));
  let good = 0;
  for (let k = 0; k + 1 < known.length; k++) if (pos.get(known[k + 1]!) === pos.get(known[k]!)! + 1) good++;
  return { good, pairs: known.length - 1 };
}

describe("reading order of multi-column pages (detector boxes at 300 DPI)", () => {
  // before the soft gutters: 7/165, 13/171, 3/44 (read across the columns), 26/93, 11/116, 27/92, 29/90 (abstract and columns spliced)
  it.each([
    ["mag3-p1-scan", "a three-column magazine page scanned a little askew (0.4°), with a headline, header and folio"],
    ["mag3-p1", "the same page, clean"],
    ["mag3-p2", "its second page: short columns, a running header and a page number in the middle"],
    ["paper2-p1", "a two-column paper under a full-width title and abstract, lines of both columns detected as one box"],
    ["paper2-p2", "the paper's second page"],
    ["paper2-p1-pdfjs", "paper2 p1 rendered as ocr parse renders it (pdfjs)"],
    ["paper2-p1-150dpi", "…and at ocr parse's default 150 DPI"],
  ])("reads %s column by column (%s)", (name) => {
    const f = load(name);
    const { good, pairs } = inOrder(orderLines(boxes(f)), f.runs);
    expect(good / pairs).toBeGreaterThanOrEqual(0.99);
  });

  it("reads a two-column page scanned askew (-0.3°) column by column once the pixels cut the lines the detector joined", () => {
    // before: 38/74 (the detector's boxes hold a line of each column on most rows); cut at the ink gutter: 93/99
    const joined = load("paper2-p1-scan"),
      cut = load("paper2-p1-scan-split");
    expect(cut.boxes.length).toBeGreaterThan(joined.boxes.length + 20);
    const { good, pairs } = inOrder(orderLines(boxes(cut)), cut.runs);
    expect(good / pairs).toBeGreaterThanOrEqual(0.93);
  });

  it("splits a box holding a line of each column at the gutter, and reads each half in its column", () => {
    const f = load("paper2-p1");
    const merged = boxes(f).filter((b) => b.xMin < 300 && b.xMax > 2200 && b.yMin > 1600);
    expect(merged.length).toBeGreaterThan(3);
    const ordered = orderLines(boxes(f));
    expect(ordered.length).toBe(f.boxes.length + merged.length);
    const halves = ordered.filter((b) => b.yMin === merged[0]!.yMin && b.xMax - b.xMin < 1200);
    expect(halves).toHaveLength(2);
  });

  it("finds no gutter in one column of prose, nor under a full-width abstract", () => {
    const column = Array.from({ length: 30 }, (_, k) => ({
      xMin: 200,
      yMin: 300 + 60 * k,
      xMax: k % 5 === 4 ? 900 : 2200,
      yMax: 355 + 60 * k,
    }));
    expect(softGutter(column, 60)).toBeUndefined();
    const f = load("paper2-p1");
    // the title, authors and abstract with the first lines of both columns below them
    const top = boxes(f).filter((b) => b.yMax < 1100);
    expect(softGutter(top, 63)).toBeUndefined();
  });
});

describe("a table set without empty bands between its rows (XY-cut's rows)", () => {
  const box = (name: string, xMin: number, yMin: number, xMax: number, yMax: number) => ({ name, xMin, yMin, xMax, yMax });
  it("reads a cell wrapped over two lines whole, beside one-line cells set level with its middle", () => {
    // mt-luamaths p2: "\\mathRound | \\mathRound{number}{digits} | It rounds off a real number to a speci- / fied number
    // of digits." (boxes at 150 DPI, dilated as the detector gives them)
    const row = [
      box("speci-", 681, 1258, 1048, 1287),
      box("\\mathRound", 231, 1274, 349, 1302),
      box("{digits}", 376, 1274, 667, 1303),
      box("fied", 683, 1282, 883, 1311),
    ];
    expect(xyCut(row, 15).map((b) => b.name)).toEqual(["\\mathRound", "{digits}", "speci-", "fied"]);
    expect(xyCut(row.slice(2).concat(row[0]!), 15).map((b) => b.name)).toEqual(["{digits}", "speci-", "fied"]);
  });
  it("keeps a regular table row by row, and page columns set half a line apart column by column", () => {
    const rows = [
      box("a1", 100, 100, 200, 129),
      box("b1", 220, 100, 300, 129),
      box("c1", 320, 100, 400, 129),
      box("a2", 100, 122, 200, 151),
      box("b2", 220, 122, 300, 151),
      box("c2", 320, 122, 400, 151),
    ];
    expect(xyCut(rows, 15).map((b) => b.name)).toEqual(["a1", "b1", "c1", "a2", "b2", "c2"]);
  });
});

describe("page columns whose paragraphs end level (a narrow band across a clean gutter)", () => {
  const items = (rows: number[][]) => rows.map(([xMin, yMin, xMax, yMax]) => ({ xMin: xMin!, yMin: yMin!, xMax: xMax!, yMax: yMax! }));
  it("reads a two-column paper's left column whole, its figure and footnotes included, before the right one", () => {
    // mc-confproc-p1 (DAFx template, 150 DPI) below its author grid: the abstract's end and a table float's space
    // leave a band of 19 px (0.6 line) across both columns, the figure's top and the table caption's foot one of 48 px
    const body = items([
      [313, 570, 423, 595],
      [114, 603, 620, 638],
      [115, 628, 619, 659],
      [115, 649, 619, 680],
      [115, 671, 621, 702],
      [117, 695, 495, 721],
      [145, 713, 620, 748],
      [114, 735, 622, 770],
      [117, 759, 454, 790],
      [117, 783, 342, 809],
      [658, 570, 1161, 601],
      [656, 591, 1161, 621],
      [657, 614, 1160, 641],
      [656, 634, 1161, 664],
      [656, 656, 971, 686],
      [658, 711, 758, 736],
      [657, 746, 1160, 773],
      [656, 768, 1163, 798],
      [656, 788, 1120, 819],
      [276, 838, 460, 864],
      [115, 879, 532, 910],
      [116, 933, 227, 962],
      [115, 970, 621, 1001],
      [115, 993, 621, 1023],
      [117, 1020, 136, 1037],
      [813, 840, 1007, 865],
      [868, 865, 888, 888],
      [963, 868, 981, 882],
      [868, 885, 892, 908],
      [962, 885, 984, 907],
      [864, 901, 894, 933],
      [960, 909, 986, 930],
      [866, 930, 894, 951],
      [960, 930, 982, 950],
      [767, 991, 1047, 1021],
      [225, 1106, 246, 1121],
      [239, 1166, 253, 1179],
      [284, 1160, 324, 1186],
      [345, 1160, 384, 1186],
      [402, 1160, 442, 1186],
      [461, 1160, 504, 1186],
      [504, 1160, 561, 1184],
      [343, 1182, 430, 1207],
      [184, 1233, 204, 1252],
      [216, 1264, 243, 1280],
      [242, 1314, 252, 1324],
      [288, 1307, 323, 1332],
      [348, 1306, 388, 1332],
      [408, 1307, 443, 1332],
      [364, 1327, 407, 1353],
      [468, 1307, 505, 1332],
      [178, 1373, 557, 1403],
      [135, 1413, 489, 1447],
      [134, 1432, 360, 1466],
      [133, 1453, 439, 1484],
      [133, 1472, 231, 1505],
      [656, 1071, 788, 1100],
      [657, 1107, 1115, 1134],
      [811, 1162, 875, 1193],
      [889, 1152, 924, 1168],
      [916, 1158, 1009, 1197],
      [895, 1192, 922, 1207],
      [1129, 1168, 1160, 1192],
      [658, 1213, 1132, 1243],
      [838, 1257, 976, 1283],
      [1130, 1257, 1160, 1283],
      [659, 1298, 888, 1324],
      [656, 1351, 823, 1380],
      [656, 1386, 1161, 1417],
      [656, 1409, 1161, 1439],
      [655, 1428, 1161, 1463],
      [655, 1450, 1163, 1485],
      [656, 1474, 929, 1504],
    ]);
    const ordered = xyCut(body, 15);
    const firstRight = ordered.findIndex((b) => b.xMin >= 640);
    expect(ordered.slice(firstRight).every((b) => b.xMin >= 640)).toBe(true);
    expect(ordered[0]).toMatchObject({ yMin: 570, xMin: 313 });
    expect(ordered[firstRight]).toMatchObject({ yMin: 570, xMin: 658 });
  });
  it("keeps a form's questions band by band where the prose above the band does not go on below it", () => {
    // fm-verifica (150 DPI): questions 3 and 4 side by side, then question 5's answers in three columns; the band
    // between them is 1.5 lines
    const form = items([
      [82, 337, 531, 377],
      [112, 376, 498, 416],
      [85, 442, 563, 473],
      [114, 471, 563, 503],
      [113, 497, 568, 533],
      [112, 525, 339, 560],
      [114, 569, 274, 604],
      [113, 602, 467, 637],
      [115, 635, 417, 670],
      [116, 670, 272, 704],
      [115, 700, 467, 736],
      [473, 729, 569, 762],
      [83, 815, 253, 846],
      [342, 861, 420, 900],
      [131, 863, 271, 901],
      [504, 864, 640, 898],
      [341, 901, 421, 943],
      [501, 903, 631, 941],
      [130, 906, 272, 940],
      [83, 992, 451, 1023],
      [1062, 342, 1160, 375],
      [674, 442, 1110, 473],
      [707, 489, 1156, 521],
      [704, 563, 1047, 599],
      [704, 609, 1047, 644],
      [704, 655, 1102, 690],
      [704, 700, 1134, 736],
      [1063, 732, 1157, 761],
      [946, 814, 1157, 849],
      [709, 860, 793, 903],
      [871, 862, 1053, 901],
      [1084, 864, 1160, 899],
      [711, 900, 793, 943],
      [869, 898, 1046, 945],
      [1080, 900, 1162, 943],
      [1062, 992, 1158, 1025],
    ]);
    const ordered = xyCut(form, 17);
    const firstBelow = ordered.findIndex((b) => b.yMin > 788);
    expect(ordered.slice(firstBelow).every((b) => b.yMin > 788)).toBe(true);
  });
});

describe("a grid of centred author blocks over a paper's columns", () => {
  // mc-confproc-p1 (DAFx template, 150 DPI): two rows of two author blocks, each a name over its affiliation, the names
  // set 3 px above their blocks; the gutter between the blocks is closed at box level (a soft gutter)
  const box = (name: string, xMin: number, yMin: number, xMax: number, yMax: number) => ({ name, xMin, yMin, xMax, yMax });
  const grid = [
    box("John", 340, 245, 460, 278),
    box("Kent", 782, 246, 907, 279),
    box("SPCL", 239, 282, 563, 316),
    box("McGill", 211, 312, 591, 343),
    box("dafx1", 292, 340, 511, 370),
    box("Reading", 627, 283, 1067, 318),
    box("Universe", 728, 311, 967, 345),
    box("dafx2", 738, 342, 957, 372),
    box("Lou", 339, 392, 450, 428),
    box("Manfred", 766, 394, 986, 428),
    box("Spinning", 175, 435, 620, 469),
    box("Unknown", 654, 436, 1101, 466),
    box("Planets", 279, 461, 514, 495),
    box("Nowhere", 717, 461, 1038, 495),
    box("dafx3", 289, 491, 506, 521),
    box("dafx4", 768, 490, 989, 524),
  ];
  it("reads the first row block by block, each name with its affiliation, not the names first", () => {
    const ordered = xyCut(grid, 15).map((b) => b.name);
    expect(ordered.slice(0, 8)).toEqual(["John", "SPCL", "McGill", "dafx1", "Kent", "Reading", "Universe", "dafx2"]);
    expect(ordered.indexOf("Lou")).toBeGreaterThan(ordered.indexOf("dafx2"));
  });
});

describe("the layout stage", () => {
  it("is XY-cut by default, and a stage set in its place orders the lines the front end reads", async () => {
    const { layoutStage, setLayoutStage, XY_CUT_STAGE } = await import("../../src/layout/stage.js");
    expect(layoutStage().name).toBe("xy-cut");
    const lines = boxes(load("mag3-p2"));
    const reversed: typeof XY_CUT_STAGE = { ...XY_CUT_STAGE, name: "reverse", order: (l) => [...l].reverse() };
    const previous = setLayoutStage(reversed);
    try {
      expect(orderLines(lines)).toEqual([...lines].reverse());
    } finally {
      setLayoutStage(previous);
    }
    expect(orderLines(lines)).toEqual(XY_CUT_STAGE.order(lines, { width: 0, height: 0 }));
  });
});

describe("pictures take part in the cuts (PageFrame.pictures)", () => {
  // two columns (x 50-480 and 520-950) of 20-px lines on a 30-px pitch; `name` is column and line number
  const column = (name: string, x0: number, x1: number, y0: number, n: number) =>
    Array.from({ length: n }, (_, k) => ({
      name: `${name}${k + 1}`,
      xMin: x0,
      xMax: x1,
      yMin: y0 + 30 * k,
      yMax: y0 + 30 * k + 20,
      score: 1,
    }));
  const names = (lines: readonly { name: string }[]) => lines.map((b) => b.name).join(" ");
  const frame = { width: 1000, height: 1400 };

  it("reads a column with a photograph in it whole before the next, where the other column is blank beside it", () => {
    // mc-acm-p4: the left column's text, a photograph, its caption and more text; the right column ends a section
    // with blank space level with the photograph: the band under the photograph ran across the page, so the left
    // column's text under it was read after the right column's first part
    const lines = [
      ...column("a", 50, 480, 100, 6), // 100-270
      ...column("b", 50, 480, 700, 4), // under the photograph (300-685)
      ...column("c", 520, 950, 100, 12), // 100-450, then blank to 700
      ...column("d", 520, 950, 700, 4),
    ];
    const picture = { xMin: 50, xMax: 480, yMin: 290, yMax: 685 };
    expect(names(XY_CUT_STAGE.order(lines, frame))).toBe(
      "a1 a2 a3 a4 a5 a6 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 b1 b2 b3 b4 d1 d2 d3 d4",
    );
    const ordered = XY_CUT_STAGE.order(lines, { ...frame, pictures: [picture] });
    expect(names(ordered)).toBe("a1 a2 a3 a4 a5 a6 b1 b2 b3 b4 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 d1 d2 d3 d4");
    // (the lines themselves come back, not the picture nor copies)
    expect(ordered.every((b) => lines.includes(b))).toBe(true);
  });

  it("leaves out a picture XY-cut split at a soft gutter (its halves are copies)", () => {
    // two columns whose boxes overlap (no empty band: the gutter shows on the boxes' cores only), and a box reaching
    // far into both, level with lines of each: XY-cut splits it at the gutter as two lines read as one
    const lines = [...column("a", 50, 505, 100, 10), ...column("b", 495, 950, 100, 10)];
    const across = { xMin: 200, xMax: 800, yMin: 220, yMax: 240 };
    const ordered = XY_CUT_STAGE.order(lines, { ...frame, pictures: [across] });
    expect(names(ordered)).toBe(names(XY_CUT_STAGE.order(lines, frame)));
    expect(ordered).toHaveLength(lines.length);
  });

  it("reads the columns above a picture across the page before the columns under it", () => {
    const lines = [
      ...column("a", 50, 480, 100, 8),
      ...column("b", 520, 950, 100, 8),
      ...column("c", 50, 480, 700, 8),
      ...column("d", 520, 950, 700, 8),
    ];
    const teaser = { xMin: 50, xMax: 950, yMin: 345, yMax: 690 };
    expect(names(XY_CUT_STAGE.order(lines, { ...frame, pictures: [teaser] }))).toMatch(/^a1 .* a8 b1 .* b8 c1 .* c8 d1 .* d8$/);
  });
});

describe("panels are read whole (PageFrame.panels)", () => {
  // a leaflet's two columns of six short lines on one leading, 320 px apart: a coloured box's lines on the left, a
  // column of type on white on the right (alike, they read as a table's two columns, row by row)
  const frame = { width: 1240, height: 1754 };
  const left = Array.from({ length: 6 }, (_, k) => ({ xMin: 100, xMax: 330, yMin: 400 + 40 * k, yMax: 430 + 40 * k, name: `a${k + 1}` }));
  const right = Array.from({ length: 6 }, (_, k) => ({ xMin: 660, xMax: 900, yMin: 400 + 40 * k, yMax: 430 + 40 * k, name: `b${k + 1}` }));
  const heading = { xMin: 80, xMax: 700, yMin: 250, yMax: 310, name: "h" };
  const lines = [heading, ...left, ...right];
  const names = (ordered: readonly { name: string }[]) => ordered.map((b) => b.name).join(" ");
  const box = { xMin: 80, xMax: 600, yMin: 380, yMax: 680 };

  it("reads a panel's lines together, before or after the column beside it", () => {
    expect(names(XY_CUT_STAGE.order(lines, frame))).toBe("h a1 b1 a2 b2 a3 b3 a4 b4 a5 b5 a6 b6");
    expect(names(XY_CUT_STAGE.order(lines, { ...frame, panels: [box] }))).toBe("h a1 a2 a3 a4 a5 a6 b1 b2 b3 b4 b5 b6");
    // two panels side by side, and one that holds no line
    const other = { xMin: 640, xMax: 1160, yMin: 380, yMax: 680 };
    const empty = { xMin: 80, xMax: 600, yMin: 900, yMax: 1200 };
    expect(names(XY_CUT_STAGE.order(lines, { ...frame, panels: [other, box, empty] }))).toBe("h a1 a2 a3 a4 a5 a6 b1 b2 b3 b4 b5 b6");
  });

  it("reads a panel's own columns in order, and its lines once where a cut splits its block", () => {
    // the panel holds both columns; the heading outside it
    const wide = { xMin: 60, xMax: 1180, yMin: 380, yMax: 680 };
    const ordered = XY_CUT_STAGE.order(lines, { ...frame, panels: [wide] });
    expect(ordered).toHaveLength(lines.length);
    expect(names(ordered)).toBe(names(XY_CUT_STAGE.order(lines, frame)));
  });
});

describe("the default model's learned reading order (models/default/layout.json, src/layout/learned.ts)", () => {
  const model = parsePairOrderModel(
    JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../models/default/layout.json"), "utf8")),
  );
  const scorer = new PairOrderScorer(model);
  const learned = (f: Fixture) => scorer.order(boxes(f), { width: f.width, height: f.height });

  it("keeps XY-cut's order where the model reads the page much as XY-cut does (margin > 0)", () => {
    expect(model.margin).toBeGreaterThan(0);
    for (const name of ["mag3-p1", "mag3-p1-scan", "mag3-p2", "paper2-p2", "paper2-p1-pdfjs", "paper2-p1-150dpi"]) {
      const f = load(name);
      expect(learned(f), name).toEqual(orderLines(boxes(f), { width: f.width, height: f.height }));
    }
  });

  it("reads the page scanned askew, whose lines the detector joined across the gutter, better than XY-cut", () => {
    // (these pages are held out: the model trained on the corpus, its margin was chosen on the corpus' val split)
    const f = load("paper2-p1-scan");
    const xy = inOrder(orderLines(boxes(f)), f.runs),
      ours = inOrder(learned(f), f.runs);
    expect(xy.good / xy.pairs).toBeLessThan(0.6);
    expect(ours.good / ours.pairs).toBeGreaterThanOrEqual(0.85);
  });
});
