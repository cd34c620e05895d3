// Our bicubic resize against Pillow's Image.resize(BICUBIC) outputs (fixtures/pil-resize): shrinking, enlarging, one axis.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resizeBicubic } from "../../src/vision/resample.js";

const DIR = path.resolve("fixtures/pil-resize");
const manifest = JSON.parse(readFileSync(path.join(DIR, "manifest.json"), "utf8")) as {
  source: { width: number; height: number };
  cases: { width: number; height: number; file: string }[];
};

function source(): Uint8Array {
  const { width, height } = manifest.source;
  const out = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      for (let c = 0; c < 3; c++) out[(y * width + x) * 3 + c] = (x * x * 3 + y * y * 5 + x * y * 7 + c * 50) % 256;
  return out;
}

describe("PIL-exact bicubic resize", () => {
  for (const c of manifest.cases) {
    it(`${manifest.source.width}×${manifest.source.height} → ${c.width}×${c.height} equals Pillow byte for byte`, () => {
      const ours = resizeBicubic(source(), manifest.source.width, manifest.source.height, c.width, c.height);
      const ref = readFileSync(path.join(DIR, c.file));
      expect(ours.length).toBe(ref.length);
      let differing = 0;
      for (let i = 0; i < ref.length; i++) if (ours[i] !== ref[i]) differing++;
      expect(differing).toBe(0);
    });
  }

  for (const c of manifest.cases) {
    it(`${manifest.source.width}×${manifest.source.height} → ${c.width}×${c.height} of a grey image (one channel resized, copied) equals Pillow's red channel`, () => {
      // Pillow resizes each channel alone: the red channel of its output is the resize of the source's red one
      const { width, height } = manifest.source;
      const grey = source();
      for (let i = 0; i < width * height; i++) grey[i * 3 + 1] = grey[i * 3 + 2] = grey[i * 3]!;
      const ours = resizeBicubic(grey, width, height, c.width, c.height);
      const ref = readFileSync(path.join(DIR, c.file));
      expect(ours.length).toBe(ref.length);
      let differing = 0;
      for (let i = 0; i < ref.length; i++) if (ours[i] !== ref[i - (i % 3)]) differing++;
      expect(differing).toBe(0);
    });
  }

  it("returns the input unchanged at the same size", () => {
    const s = source();
    expect(resizeBicubic(s, manifest.source.width, manifest.source.height, manifest.source.width, manifest.source.height)).toBe(s);
  });
});
