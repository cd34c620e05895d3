// Crops figure regions out of page pixels and encodes them as PNG (grounding "image" blocks become files).
import { loadSharp } from "../input/sharp.js";
import type { PagePixels } from "./preprocess.js";

/** PNG of the region [x0, y0, x1, y1) of the page, clamped to the page; undefined when the region is empty. */
export async function cropRegionPng(page: PagePixels, box: readonly [number, number, number, number]): Promise<Buffer | undefined> {
  const x0 = Math.max(0, Math.min(page.width, Math.floor(box[0])));
  const y0 = Math.max(0, Math.min(page.height, Math.floor(box[1])));
  const x1 = Math.max(0, Math.min(page.width, Math.ceil(box[2])));
  const y1 = Math.max(0, Math.min(page.height, Math.ceil(box[3])));
  if (x1 - x0 < 1 || y1 - y0 < 1) return undefined;
  const sharp = await loadSharp();
  return sharp(page.data, { raw: { width: page.width, height: page.height, channels: 3 } })
    .extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 })
    .png()
    .toBuffer();
}
