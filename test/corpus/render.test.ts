// Corpus page images (scripts/corpus/render.mjs): truth boxes in points land on the ink of the rendered page, at any
// DPI, and after a scan-like rotation as python/ocr_tools/train/data.py turns them.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain JavaScript module of the corpus scripts
import { boxToPixels, pixelScale, renderGrey, scanLike } from "../../scripts/corpus/render.mjs";
// @ts-expect-error plain JavaScript module of the corpus scripts
import { documentFurniture, openPdf, pageTruth, readPage } from "../../scripts/corpus/truth.mjs";
import { makeFixture } from "./fixture.js";

interface Grey {
  data: Buffer;
  width: number;
  height: number;
}
interface Line {
  box: number[];
  text: string;
}

/** Share of the page's ink (pixels darker than 128) inside the boxes, and the lines whose box holds no ink. */
function inkInside(img: Grey, boxes: number[][], pad: number) {
  const inside = new Uint8Array(img.width * img.height);
  for (const b of boxes) {
    for (let y = Math.max(0, Math.floor(b[1]! - pad)); y < Math.min(img.height, Math.ceil(b[3]! + pad)); y++) {
      for (let x = Math.max(0, Math.floor(b[0]! - pad)); x < Math.min(img.width, Math.ceil(b[2]! + pad)); x++)
        inside[y * img.width + x] = 1;
    }
  }
  let ink = 0,
    covered = 0;
  for (let i = 0; i < inside.length; i++)
    if (img.data[i]! < 128) {
      ink++;
      covered += inside[i]!;
    }
  const empty = boxes.filter((b) => {
    let n = 0;
    for (let y = Math.max(0, Math.round(b[1]!)); y < Math.min(img.height, Math.round(b[3]!)); y++) {
      for (let x = Math.max(0, Math.round(b[0]!)); x < Math.min(img.width, Math.round(b[2]!)); x++)
        if (img.data[y * img.width + x]! < 128) n++;
    }
    return n === 0;
  });
  return { share: covered / ink, empty: empty.length };
}

describe("corpus rendering", () => {
  let dir: string, file: string;
  let truth: { width: number; height: number; lines: Line[] };
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "corpus-render-"));
    file = path.join(dir, "fixture.pdf");
    writeFileSync(file, (await makeFixture()).bytes);
    const doc = await openPdf(file);
    const pages = [await readPage(doc, 1), await readPage(doc, 2), await readPage(doc, 3)];
    truth = pageTruth(pages[1], documentFurniture(pages)[1], { formulas: ["\\alpha + \\beta = \\gamma"] }); // every line, the formula's too
    await doc.destroy();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("maps every truth box onto its ink at 100, 150 and 300 DPI (the product's renderer)", async () => {
    for (const dpi of [100, 150, 300]) {
      const img: Grey = await renderGrey(file, 2, dpi, "pdfjs");
      const raster = { ...pixelScale(truth.width, truth.height, img.width, img.height), width: img.width, height: img.height };
      expect(raster.scaleX).toBeCloseTo(dpi / 72, 2);
      const boxes = truth.lines.map((l) => boxToPixels(l.box, raster));
      const { share, empty } = inkInside(img, boxes, 1);
      expect(empty).toBe(0);
      // all ink but the table's rules lies inside the line boxes
      const rules = inkInside(
        img,
        [
          [55, 149, 455, 151],
          [55, 167, 455, 169],
          [55, 222, 455, 224],
        ]
          .map((b) => boxToPixels(b, raster))
          .concat(boxes),
        1,
      );
      expect(rules.share).toBeGreaterThan(0.995);
      expect(share).toBeLessThan(rules.share);
      // and a box shifted by a line's height misses most of it: the test can tell a wrong transform
      const shifted = inkInside(
        img,
        truth.lines.map((l) => boxToPixels([l.box[0]!, l.box[1]! + 6, l.box[2]!, l.box[3]! + 6], raster)),
        0,
      );
      expect(shifted.share).toBeLessThan(0.9 * share);
    }
  });

  it("turns the boxes with a scan-like page's rotation", async () => {
    const img: Grey = await renderGrey(file, 2, 150, "pdfjs");
    // a generator that asks for binarisation, then rotation only (scripts/synth/degrade.mjs draws rotate, blur, noise, jpeg)
    const draws = [0.1, 0.5, 0.9, 0.1, 0.9, 0.9, 0.9, 1.0];
    let k = 0;
    const rng = { next: () => draws[k++ % draws.length]!, float: (lo: number, hi: number) => (k++, hi - (hi - lo) * 0.05), gauss: () => 0 };
    const { png, rotate, ops } = await scanLike(img.data, img.width, img.height, rng);
    expect(ops).toEqual(["binarise"]);
    expect(Math.abs(rotate)).toBeGreaterThan(0.4);
    const { data, info } = await sharp(png).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
    const turned: Grey = { data, width: info.width, height: info.height };
    const raster = { ...pixelScale(truth.width, truth.height, img.width, img.height), width: img.width, height: img.height, rotate };
    const boxes = truth.lines.map((l) => boxToPixels(l.box, raster));
    expect(inkInside(turned, boxes, 1).empty).toBe(0);
    const unturned = truth.lines.map((l) => boxToPixels(l.box, { ...raster, rotate: 0 }));
    const withRules = (bs: number[][]) =>
      inkInside(
        turned,
        bs.concat(
          [
            [55, 149, 455, 151],
            [55, 167, 455, 169],
            [55, 222, 455, 224],
          ].map((b) => boxToPixels(b, raster)),
        ),
        1,
      ).share;
    expect(withRules(boxes)).toBeGreaterThan(withRules(unturned));
  });

  it("maps a real LaTeX page's truth boxes onto its ink (l2tabu-italian p7, poppler-free)", async () => {
    const real = path.resolve("test/corpus/fixtures/l2tabuit-p6-9.pdf");
    const doc = await openPdf(real);
    const pages = [];
    for (let n = 1; n <= doc.numPages; n++) pages.push(await readPage(doc, n));
    await doc.destroy();
    const t = pageTruth(pages[1], documentFurniture(pages)[1]);
    expect(t.drop).toBeUndefined();
    const img: Grey = await renderGrey(real, 2, 150, "pdfjs");
    const raster = { ...pixelScale(t.width, t.height, img.width, img.height), width: img.width, height: img.height };
    const { share, empty } = inkInside(
      img,
      t.lines.map((l: Line) => boxToPixels(l.box, raster)),
      1,
    );
    expect(empty).toBe(0);
    expect(share).toBeGreaterThan(0.95); // the rest: frames around code, the ▷ marks (drawn, not text), the footnote rule
  });

  it("refuses an image that is not the page's shape", () => {
    expect(() => pixelScale(612, 792, 1275, 1275)).toThrow(/shape/);
    expect(pixelScale(612, 792, 1275, 1650).scaleX).toBeCloseTo(1275 / 612, 6);
  });
});
