// The synthetic page rasteriser: clean pages, and scan-like degradations that stay the same page.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CORPUS = path.resolve("fixtures/synth/corpus");
const GENERATOR = path.resolve("scripts/synth/generate.mjs");
const RASTERISE = path.resolve("scripts/synth/rasterise.mjs");

interface Raster {
  pages: { png: string; width: number; height: number; rotate?: number }[];
}

/** A page image's first channel, and how many channels the PNG holds. */
async function grey(file: string) {
  const { data, info } = await sharp(file).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  return { data, info: { ...info, channels: (await sharp(file).metadata()).channels } };
}

/** Ink (255 − grey) summed over bands of 8 rows. */
function rowInk(img: { data: Buffer; info: { width: number; height: number } }): number[] {
  const bands = new Array<number>(Math.ceil(img.info.height / 8)).fill(0);
  for (let y = 0; y < img.info.height; y++)
    for (let x = 0; x < img.info.width; x++) bands[y >> 3]! += 255 - img.data[y * img.info.width + x]!;
  return bands;
}

function correlation(a: number[], b: number[]): number {
  const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
  const ma = mean(a),
    mb = mean(b);
  let ab = 0,
    aa = 0,
    bb = 0;
  a.forEach((x, i) => {
    ab += (x - ma) * (b[i]! - mb);
    aa += (x - ma) ** 2;
    bb += (b[i]! - mb) ** 2;
  });
  return ab / Math.sqrt(aa * bb);
}

describe("rasterise.mjs", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "ocr-raster-"));
    execFileSync(
      "node",
      [GENERATOR, "--corpus", CORPUS, "--out", path.join(dir, "clean"), "--split", "test", "--count", "3", "--seed", "7"],
      { stdio: "pipe" },
    );
    cpSync(path.join(dir, "clean"), path.join(dir, "scan"), { recursive: true });
    execFileSync("node", [RASTERISE, path.join(dir, "clean"), "--fit", "1275x1754"], { stdio: "pipe" });
    execFileSync("node", [RASTERISE, path.join(dir, "scan"), "--fit", "1275x1754", "--degrade", "1", "--seed", "3"], { stdio: "pipe" });
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("degrades every page of a scanned document into a grey image of the same page, recording any rotation", async () => {
    let rotated = 0,
      pages = 0;
    for (const doc of ["doc-00000", "doc-00001", "doc-00002"]) {
      const clean = JSON.parse(readFileSync(path.join(dir, "clean", doc + ".raster.json"), "utf8")) as Raster;
      const scan = JSON.parse(readFileSync(path.join(dir, "scan", doc + ".raster.json"), "utf8")) as Raster;
      expect(scan.pages.map((p) => [p.width, p.height])).toEqual(clean.pages.map((p) => [p.width, p.height]));
      for (let i = 0; i < clean.pages.length; i++) {
        const a = await grey(path.join(dir, "clean", clean.pages[i]!.png));
        const b = await grey(path.join(dir, "scan", scan.pages[i]!.png));
        expect([a.info.channels, b.info.channels]).toEqual([1, 1]);
        expect([b.info.width, b.info.height]).toEqual([a.info.width, a.info.height]);
        // not identical, but the same page: its lines of text sit where they did (ink per band of 8 rows correlates)
        let diff = 0;
        for (let k = 0; k < a.data.length; k++) diff += Math.abs(a.data[k]! - b.data[k]!);
        expect(diff / a.data.length).toBeGreaterThan(0.05);
        expect(correlation(rowInk(a), rowInk(b))).toBeGreaterThan(0.9);
        const turn = scan.pages[i]!.rotate ?? 0;
        expect(Math.abs(turn)).toBeLessThanOrEqual(0.6);
        if (turn) rotated++;
        pages++;
      }
    }
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(rotated).toBeGreaterThan(0);
  });
});
