// The visual sequence: embedding counts per mode, Gundam tile grids, stitched order, and the pixels of each preprocessing mode.
import { describe, expect, it } from "vitest";
import { DEEPSEEK_OCR_MODES } from "../../src/model/checkpoint-config.js";
import type { VisionConfig } from "../../src/model/schema.js";
import { assembleVisualEmbeddings, visualSlots, visualTokenCount, type VisualSequence } from "../../src/vision/visual-sequence.js";
import { padPlacement, preparePage, roundHalfEven, type PagePixels } from "../../src/vision/preprocess.js";
import { candidateGrids, chooseTileGrid } from "../../src/vision/tiles.js";

const VISION: VisionConfig = {
  encoder: "encoder.onnx",
  mode: "base",
  modes: DEEPSEEK_OCR_MODES,
  mean: [0.5, 0.5, 0.5],
  std: [0.5, 0.5, 0.5],
  pad_color: [127, 127, 127],
  row_newline: true,
  view_separator: true,
};

function solidPage(width: number, height: number, colour: (x: number, y: number) => [number, number, number]): PagePixels {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(colour(x, y), (y * width + x) * 3);
  return { width, height, data };
}

const single = (rows: number, cols: number): VisualSequence => ({ global: { rows, cols }, rowNewline: true, viewSeparator: true });

describe("embedding counts", () => {
  it("gives Base 273, Tiny 73, Small 111, Large 421 per view", () => {
    const count = (mode: string) => {
      const g = DEEPSEEK_OCR_MODES[mode]!.grid;
      return visualTokenCount(single(g[0], g[1]));
    };
    expect(count("base")).toBe(273);
    expect(count("tiny")).toBe(73);
    expect(count("small")).toBe(111);
    expect(count("large")).toBe(421);
  });

  it("counts without newlines or separator when the model has none", () => {
    expect(visualTokenCount({ global: { rows: 16, cols: 16 }, rowNewline: false, viewSeparator: false })).toBe(256);
  });
});

describe("Gundam tile grid", () => {
  // [page width, page height, tiles across, tiles down, embeddings]: tiles stitched (10·down rows of 10·across + 1),
  // then the 1024 global view (16·17) and the separator
  const cases: [number, number, number, number][] = [
    [1240, 1754, 2, 3], // A4 portrait at 150 dpi: 2/3 is the closest ratio allowed (3/4 has 12 tiles)
    [1754, 1240, 3, 2],
    [600, 800, 2, 3], // narrower than a tile but taller: still tiled
    [2000, 2000, 3, 3], // square tie between 2×2 and 3×3: large enough for 3×3
    [1000, 1000, 2, 2], // same tie, too small for 3×3
    [500, 3000, 1, 6],
    [3000, 400, 7, 1],
  ];
  for (const [w, h, across, down] of cases) {
    it(`${w}×${h} → ${across}×${down} tiles`, () => {
      expect(chooseTileGrid(w, h, 640, 2, 9)).toEqual({ cols: across, rows: down });
    });
  }

  it("lists candidates by tile count within [min, max]", () => {
    const c = candidateGrids(2, 9);
    expect(c.every((g) => g.cols * g.rows >= 2 && g.cols * g.rows <= 9)).toBe(true);
    expect(c.map((g) => g.cols * g.rows)).toEqual([...c.map((g) => g.cols * g.rows)].sort((a, b) => a - b));
    expect(c).toContainEqual({ cols: 3, rows: 3 });
    expect(c).not.toContainEqual({ cols: 1, rows: 1 });
  });

  it("lays out an A4 page with 903 embeddings and a 640² page with 273", async () => {
    const a4 = await preparePage(
      solidPage(1240, 1754, () => [255, 255, 255]),
      VISION,
      "gundam",
    );
    expect(a4.tiles).toMatchObject({ count: 6, cols: 2, rows: 3, width: 640, height: 640 });
    expect(a4.visualTokens).toBe(30 * 21 + 16 * 17 + 1);
    expect(a4.visualTokens).toBe(903);
    const small = await preparePage(
      solidPage(640, 640, () => [255, 255, 255]),
      VISION,
      "gundam",
    );
    expect(small.tiles).toBeUndefined();
    expect(small.visualTokens).toBe(273);
  });
});

describe("visual sequence order", () => {
  it("stitches tile rows across tiles, newline per stitched row, then global rows, then the separator", () => {
    const sequence: VisualSequence = {
      tiles: { tileRows: 1, tileCols: 2, grid: { rows: 2, cols: 2 } },
      global: { rows: 1, cols: 2 },
      rowNewline: true,
      viewSeparator: true,
    };
    // hidden 1: tile t, row r, col c holds 100 + 10t + 2r + c; global holds 50 + c; newline −1; separator −2
    const tiles = new Float32Array([100, 101, 102, 103, 110, 111, 112, 113]);
    const out = assembleVisualEmbeddings(sequence, {
      hidden: 1,
      global: new Float32Array([50, 51]),
      tiles,
      newline: new Float32Array([-1]),
      separator: new Float32Array([-2]),
    });
    expect([...out]).toEqual([100, 101, 110, 111, -1, 102, 103, 112, 113, -1, 50, 51, -1, -2]);
    expect(out.length).toBe(visualTokenCount(sequence));
    expect(visualSlots(sequence)[2]).toEqual({ kind: "tile", tile: 1, row: 0, col: 0 });
  });

  it("refuses embeddings of the wrong size", () => {
    expect(() =>
      assembleVisualEmbeddings(single(2, 2), {
        hidden: 4,
        global: new Float32Array(3),
        newline: new Float32Array(4),
        separator: new Float32Array(4),
      }),
    ).toThrow(/global view has 3 values/);
  });
});

describe("preprocessing pixels", () => {
  const grey = (127 / 255 - 0.5) / 0.5;

  it("rounds halves to even like the reference", () => {
    expect(roundHalfEven(510.5)).toBe(510);
    expect(roundHalfEven(511.5)).toBe(512);
    expect(roundHalfEven(2.4)).toBe(2);
    expect(padPlacement(1000, 3, 1024, 1024)).toEqual({ x: 0, y: 510, width: 1024, height: 3 });
  });

  it("pads Base with grey, keeping the aspect ratio, centred", async () => {
    const p = await preparePage(
      solidPage(2000, 1000, () => [255, 0, 0]),
      VISION,
      "base",
    );
    expect(p.global.content).toEqual({ x: 0, y: 256, width: 1024, height: 512 });
    const px = p.global.pixels;
    const plane = 1024 * 1024;
    expect(px[0]).toBeCloseTo(grey, 5); // top-left is padding
    expect(px[2 * plane + 1023 * 1024]).toBeCloseTo(grey, 5); // bottom-left, blue plane
    const centre = 512 * 1024 + 512;
    expect(px[centre]).toBeCloseTo(1, 5); // red
    expect(px[plane + centre]).toBeCloseTo(-1, 5); // green
    expect(px.length).toBe(3 * plane);
  });

  it("stretches Tiny without padding", async () => {
    const p = await preparePage(
      solidPage(300, 900, () => [0, 255, 0]),
      VISION,
      "tiny",
    );
    expect(p.global.width).toBe(512);
    expect(p.global.content).toEqual({ x: 0, y: 0, width: 512, height: 512 });
    const plane = 512 * 512;
    expect(p.global.pixels.subarray(plane, 2 * plane).reduce((m, v) => Math.min(m, v), Infinity)).toBeCloseTo(1, 5);
    expect(p.visualTokens).toBe(73);
  });

  it("cuts Gundam tiles row-major from the stretched page", async () => {
    // left half red, right half blue: with 2 tiles across, tile 0 is red and tile 1 blue
    const page = solidPage(1240, 1754, (x) => (x < 620 ? [255, 0, 0] : [0, 0, 255]));
    const p = await preparePage(page, VISION, "gundam");
    const tileSize = 3 * 640 * 640;
    const plane = 640 * 640;
    const at = (tile: number, channel: number) => p.tiles!.pixels[tile * tileSize + channel * plane + 320 * 640 + 320]!;
    expect(at(0, 0)).toBeCloseTo(1, 5);
    expect(at(0, 2)).toBeCloseTo(-1, 5);
    expect(at(1, 0)).toBeCloseTo(-1, 5);
    expect(at(1, 2)).toBeCloseTo(1, 5);
    expect(at(5, 2)).toBeCloseTo(1, 5);
  });

  it("accepts mode names in any case and rejects unknown ones", async () => {
    const page = solidPage(64, 64, () => [1, 2, 3]);
    expect((await preparePage(page, VISION, "SMALL")).visualTokens).toBe(111);
    await expect(preparePage(page, VISION, "huge")).rejects.toThrow(/unknown mode "huge".*tiny, small, base, large, gundam/);
  });

  it("rejects pixel buffers of the wrong size", async () => {
    await expect(preparePage({ width: 10, height: 10, data: Buffer.alloc(5) }, VISION)).rejects.toThrow(/needs 300/);
  });

  it("resizes with a cubic kernel close to the source content", async () => {
    // a smooth horizontal ramp survives resizing with small error
    const page = solidPage(2048, 2048, (x) => [Math.floor(x / 8), 0, 0]);
    const p = await preparePage(page, VISION, "base");
    const x = 600;
    const expected = (Math.floor((x * 2 + 1) / 8) / 255 - 0.5) / 0.5;
    expect(Math.abs(p.global.pixels[700 * 1024 + x]! - expected)).toBeLessThan(0.02);
  });
});

describe("top-left anchor", () => {
  it("keeps a page that fits at its own pixels in the corner, padding right and bottom", async () => {
    const vision: VisionConfig = {
      ...VISION,
      pad_color: [255, 255, 255],
      modes: { page: { size: [64, 48], resize: "pad", grid: [3, 4], anchor: "top-left" } },
      mode: "page",
    };
    const p = await preparePage(
      solidPage(40, 30, () => [0, 0, 0]),
      vision,
    );
    expect(p.global.content).toEqual({ x: 0, y: 0, width: 40, height: 30 });
    const plane = 64 * 48;
    expect(p.global.pixels[0]).toBeCloseTo(-1, 5); // page (black)
    expect(p.global.pixels[39]).toBeCloseTo(-1, 5);
    expect(p.global.pixels[40]).toBeCloseTo(1, 5); // white padding right of it
    expect(p.global.pixels[2 * plane + 47 * 64]).toBeCloseTo(1, 5); // bottom row padding
    const big = await preparePage(
      solidPage(128, 64, () => [0, 0, 0]),
      vision,
    );
    expect(big.global.content).toEqual({ x: 0, y: 0, width: 64, height: 32 });
  });
});
