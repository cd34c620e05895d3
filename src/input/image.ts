// Image back end: PNG, JPEG, WebP, TIFF (every page), GIF (first frame) and AVIF through sharp.
import type { Metadata, Sharp } from "sharp";
import { loadSharp } from "./sharp.js";
import type { DocumentKind } from "./detect.js";
import { InputError } from "./errors.js";
import { capScale, DEFAULT_MAX_PIXELS, type RasterPage, type RenderOptions } from "./raster.js";
import type { DocumentMetadata, OpenedDocument, PageSize } from "./types.js";

/** Decoding refuses images beyond this (a decompression bomb guard); larger than any scanned page. */
const LIMIT_INPUT_PIXELS = 1_000_000_000;

export async function openImage(bytes: Uint8Array, kind: DocumentKind, source: string): Promise<OpenedDocument> {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sharp = await loadSharp();
  let meta: Metadata;
  try {
    meta = await sharp(buffer, { limitInputPixels: LIMIT_INPUT_PIXELS }).metadata();
  } catch (error) {
    throw new InputError("CORRUPT_IMAGE", `corrupt ${kind.toUpperCase()} image: ${(error as Error).message}`, source, {
      cause: error,
    });
  }
  if (!meta.width || !meta.height) {
    throw new InputError("CORRUPT_IMAGE", `corrupt ${kind.toUpperCase()} image: no dimensions`, source);
  }
  // Headers can be intact while the pixel data is not; decode once now so a broken image fails
  // when opened (whatever the engine), not halfway through a batch.
  // Every pixel row is decoded, but streamed into a 64-pixel thumbnail: a 20000x20000 PNG took 28 s and
  // 1.2 GB decoded whole just to be checked.
  try {
    await sharp(buffer, { page: 0, pages: 1, limitInputPixels: LIMIT_INPUT_PIXELS, failOn: "error", sequentialRead: true })
      .resize(64, 64, { fit: "inside" })
      .raw()
      .toBuffer();
  } catch (error) {
    throw new InputError("CORRUPT_IMAGE", `corrupt ${kind.toUpperCase()} image: ${(error as Error).message}`, source, {
      cause: error,
    });
  }
  // Only TIFF pages are document pages; GIF/WebP frames are animation, so we take the first.
  const pageCount = kind === "tiff" ? Math.max(1, meta.pages ?? 1) : 1;
  return new ImageDocument(sharp, buffer, kind, source, pageCount, meta);
}

class ImageDocument implements OpenedDocument {
  constructor(
    private readonly sharp: Awaited<ReturnType<typeof loadSharp>>,
    private readonly buffer: Buffer,
    readonly kind: DocumentKind,
    readonly source: string,
    readonly pageCount: number,
    private readonly meta: Metadata,
  ) {}

  private check(pageNumber: number): void {
    if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > this.pageCount) {
      throw new InputError("PAGE_RANGE", `page ${pageNumber} does not exist (image has ${this.pageCount})`, this.source);
    }
  }

  private open(pageNumber: number): Sharp {
    return this.sharp(this.buffer, { page: pageNumber - 1, pages: 1, limitInputPixels: LIMIT_INPUT_PIXELS, failOn: "error" });
  }

  async pageSize(pageNumber: number): Promise<PageSize> {
    this.check(pageNumber);
    if (pageNumber === 1 || this.kind !== "tiff") {
      const { width, height } = orientedSize(this.meta);
      return { width, height, unit: "px" };
    }
    const meta = await this.open(pageNumber).metadata();
    const { width, height } = orientedSize(meta);
    return { width, height, unit: "px" };
  }

  async renderPage(pageNumber: number, options: RenderOptions = {}): Promise<RasterPage> {
    this.check(pageNumber);
    const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
    try {
      // EXIF orientation is applied so the page is upright, as a viewer shows it.
      const size = await this.pageSize(pageNumber);
      const shrink = capScale(size.width, size.height, maxPixels);
      const warnings: string[] = [];
      let pipeline = this.open(pageNumber).autoOrient();
      if (shrink < 1) {
        const width = Math.max(1, Math.floor(size.width * shrink));
        const height = Math.max(1, Math.floor(size.height * shrink));
        pipeline = pipeline.resize(width, height, { fit: "fill" });
        warnings.push(`page ${pageNumber} is ${size.width}x${size.height} pixels, over the pixel cap; downscaled to ${width}x${height}`);
      }
      const { data, info } = await pipeline
        .flatten({ background: "#ffffff" })
        .toColourspace("srgb")
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      if (info.channels !== 3) throw new Error(`expected 3 channels, decoder gave ${info.channels}`);
      return {
        width: info.width,
        height: info.height,
        channels: 3,
        data,
        dpi: undefined,
        scale: info.width / size.width,
        warnings,
      };
    } catch (error) {
      if (error instanceof InputError) throw error;
      throw new InputError(
        "CORRUPT_IMAGE",
        `corrupt ${this.kind.toUpperCase()} image (page ${pageNumber}): ${(error as Error).message}`,
        this.source,
        { cause: error },
      );
    }
  }

  async textContent(): Promise<undefined> {
    return undefined;
  }

  async metadata(): Promise<DocumentMetadata> {
    const info: Record<string, string | number | boolean> = {
      format: this.meta.format ?? this.kind,
      width: this.meta.width ?? 0,
      height: this.meta.height ?? 0,
      channels: this.meta.channels ?? 0,
    };
    if (this.meta.density) info.density = this.meta.density;
    if (this.meta.space) info.colourSpace = this.meta.space;
    if (this.meta.orientation) info.orientation = this.meta.orientation;
    if (this.meta.pages) info.frames = this.meta.pages;
    return { info, outline: [] };
  }

  async close(): Promise<void> {}
}

function orientedSize(meta: Metadata): { width: number; height: number } {
  const w = meta.width ?? 0;
  const h = meta.height ?? 0;
  // EXIF orientations 5–8 swap the axes.
  return (meta.orientation ?? 1) >= 5 ? { width: h, height: w } : { width: w, height: h };
}
