// Converts the real fixture page into every supported image format (and a multi-page TIFF) for tests.
import sharp from "sharp";
import { readFileSync } from "node:fs";
import { fixture } from "./paths.js";

export const tablePng = () => readFileSync(fixture("table.png"));

export async function tableAs(format: "jpeg" | "webp" | "tiff" | "gif" | "avif"): Promise<Buffer> {
  return sharp(tablePng()).toFormat(format).toBuffer();
}

/** A two-page TIFF: the fixture page, then the same page flipped, so pages are distinguishable. */
export async function twoPageTiff(): Promise<Buffer> {
  const { data, info } = await sharp(tablePng()).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const flipped = await sharp(tablePng()).removeAlpha().flip().raw().toBuffer();
  return sharp(Buffer.concat([data, flipped]), {
    raw: { width: info.width, height: info.height * 2, channels: 3, pageHeight: info.height },
  } as never)
    .tiff()
    .toBuffer();
}
