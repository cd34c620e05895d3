// Raster page type and the pixel cap shared by the PDF and image back ends.

/** One rendered page: tightly packed 8-bit RGB, row-major, no padding. */
export interface RasterPage {
  width: number;
  height: number;
  channels: 3;
  data: Buffer;
  /** Effective resolution: the requested DPI for PDFs (lower if the pixel cap applied); undefined for images. */
  dpi: number | undefined;
  /** Factor from the source's own units (PDF points at 72/inch, or image pixels) to these pixels. */
  scale: number;
  /** Non-fatal notes, e.g. "downscaled to fit the pixel cap". */
  warnings: string[];
}

export interface RenderOptions {
  /** Resolution for PDF pages; ignored for images, which keep their own pixels. Default 150. */
  dpi?: number;
  /** Largest width*height allowed; bigger pages are scaled down to fit, with a warning. */
  maxPixels?: number;
}

export const DEFAULT_DPI = 150;
/** 50 megapixels: an A0 poster at ~150 DPI; beyond this memory per page grows past 150 MB of RGBA. */
export const DEFAULT_MAX_PIXELS = 50_000_000;
/** Skia (behind @napi-rs/canvas) and libvips both refuse sides beyond this. */
export const MAX_SIDE = 32_000;

/** Scale factor ≤ 1 that brings width×height within the pixel cap and side limit. */
export function capScale(width: number, height: number, maxPixels: number): number {
  let factor = 1;
  if (width * height > maxPixels) factor = Math.sqrt(maxPixels / (width * height));
  const side = Math.max(width, height) * factor;
  if (side > MAX_SIDE) factor *= MAX_SIDE / side;
  return factor;
}

/** Drops the alpha channel, compositing over white (what a printed page shows). */
export function rgbaToRgb(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): Buffer {
  const pixels = width * height;
  const rgb = Buffer.allocUnsafe(pixels * 3);
  for (let p = 0, s = 0, d = 0; p < pixels; p++, s += 4, d += 3) {
    const alpha = rgba[s + 3]!;
    if (alpha === 255) {
      rgb[d] = rgba[s]!;
      rgb[d + 1] = rgba[s + 1]!;
      rgb[d + 2] = rgba[s + 2]!;
    } else {
      const white = 255 * (255 - alpha);
      rgb[d] = Math.round((rgba[s]! * alpha + white) / 255);
      rgb[d + 1] = Math.round((rgba[s + 1]! * alpha + white) / 255);
      rgb[d + 2] = Math.round((rgba[s + 2]! * alpha + white) / 255);
    }
  }
  return rgb;
}

/**
 * Pixel dimensions for a page size in fractional pixels. Rounds like poppler's pdftoppm
 * (ceil after discarding float noise), so our rasters line up with the usual reference tool.
 */
export function pixelSize(width: number, height: number): { width: number; height: number } {
  const round = (v: number) => Math.max(1, Math.ceil(v - 1e-6));
  return { width: round(width), height: round(height) };
}

/**
 * Pixel size and scale of a PDF page (in points) rendered at `dpi`, after the pixel cap.
 * Uncapped sizes round like pdftoppm; capped ones round down so the cap holds exactly.
 */
export function pdfRasterSize(
  widthPt: number,
  heightPt: number,
  dpi: number,
  maxPixels: number,
): { width: number; height: number; scale: number; capped: boolean; wanted: { width: number; height: number } } {
  const wanted = pixelSize((widthPt * dpi) / 72, (heightPt * dpi) / 72);
  const shrink = capScale(wanted.width, wanted.height, maxPixels);
  if (shrink >= 1) return { ...wanted, scale: dpi / 72, capped: false, wanted };
  const scale = (dpi / 72) * shrink;
  return {
    width: Math.max(1, Math.floor(widthPt * scale)),
    height: Math.max(1, Math.floor(heightPt * scale)),
    scale,
    capped: true,
    wanted,
  };
}

/**
 * Size a page will have when rendered with these options, without rendering it: PDF pages
 * (points) at the DPI, images at their own pixels; both after the pixel cap.
 */
export function renderedSize(
  size: { width: number; height: number; unit: "pt" | "px" },
  options: RenderOptions = {},
): { width: number; height: number; dpi: number | undefined } {
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  if (size.unit === "px") {
    const shrink = capScale(size.width, size.height, maxPixels);
    if (shrink >= 1) return { width: size.width, height: size.height, dpi: undefined };
    return {
      width: Math.max(1, Math.floor(size.width * shrink)),
      height: Math.max(1, Math.floor(size.height * shrink)),
      dpi: undefined,
    };
  }
  const raster = pdfRasterSize(size.width, size.height, options.dpi ?? DEFAULT_DPI, maxPixels);
  return { width: raster.width, height: raster.height, dpi: raster.scale * 72 };
}
