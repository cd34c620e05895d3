// PDF back end: pdfjs-dist (legacy Node build) with its own @napi-rs/canvas; the only importer of pdfjs.
import { createRequire } from "node:module";
import path from "node:path";
import { InputError } from "./errors.js";
import { DEFAULT_DPI, DEFAULT_MAX_PIXELS, pdfRasterSize, rgbaToRgb, type RasterPage, type RenderOptions } from "./raster.js";
import type { DocumentMetadata, OpenedDocument, OutlineEntry, PageSize, PageText, TextRun } from "./types.js";

type Pdfjs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");
type PDFDocumentProxy = import("pdfjs-dist/legacy/build/pdf.mjs").PDFDocumentProxy;
type PDFPageProxy = import("pdfjs-dist/legacy/build/pdf.mjs").PDFPageProxy;

let pdfjsPromise: Promise<Pdfjs> | undefined;

/**
 * Loads pdfjs once. Its Node build requires @napi-rs/canvas, which by default registers every system font at load
 * (about 0.6 s of CPU and 58 MiB of RSS with ~700 font files): pdfjs draws glyphs as paths from the PDF's fonts
 * or its own standard_fonts and never asks the canvas for a system font (44 pages of the real corpus render to the
 * same bytes without them), so that load is switched off unless the environment sets DISABLE_SYSTEM_FONTS_LOAD.
 */
function loadPdfjs(): Promise<Pdfjs> {
  if (!pdfjsPromise) {
    const set = process.env.DISABLE_SYSTEM_FONTS_LOAD === undefined;
    if (set) process.env.DISABLE_SYSTEM_FONTS_LOAD = "1";
    pdfjsPromise = import("pdfjs-dist/legacy/build/pdf.mjs").finally(() => {
      if (set) delete process.env.DISABLE_SYSTEM_FONTS_LOAD;
    });
  }
  return pdfjsPromise;
}

/**
 * Folders inside the pdfjs-dist package. Without them non-embedded fonts (the 14 standard
 * fonts), CJK cMaps, JPEG2000/JBIG2 (wasm) and ICC colour all render wrong or not at all.
 */
function packageFolders(): { standardFontDataUrl: string; cMapUrl: string; wasmUrl: string; iccUrl: string } {
  const require = createRequire(import.meta.url);
  const root = path.dirname(require.resolve("pdfjs-dist/package.json"));
  // pdfjs' Node factories read these with fs, so plain paths with a trailing slash work.
  const folder = (name: string) => path.join(root, name) + path.sep;
  return {
    standardFontDataUrl: folder("standard_fonts"),
    cMapUrl: folder("cmaps"),
    wasmUrl: folder("wasm"),
    iccUrl: folder("iccs"),
  };
}

let folders: ReturnType<typeof packageFolders> | undefined;

/**
 * Pages rendered between two drops of the document's caches. pdfjs keeps every font and image it decoded
 * for the document's lifetime: over 100 pages that each bring their own fonts, a render-only pass grew
 * 200 -> 257 MiB; dropping the caches every 10 pages kept it at 175-212 MiB, at no measurable cost per page
 * (fonts that later pages use again are parsed again).
 */
export const PDF_CACHE_PAGES = 8;

/** pdfjs PasswordResponses codes. */
const NEED_PASSWORD = 1;
const INCORRECT_PASSWORD = 2;

export async function openPdf(bytes: Uint8Array, source: string, password?: string): Promise<OpenedDocument> {
  const pdfjs = await loadPdfjs();
  folders ??= packageFolders();
  // pdfjs takes ownership of (detaches) the buffer it is given; hand it a copy.
  const data = new Uint8Array(bytes);
  const task = pdfjs.getDocument({
    data,
    password,
    ...folders,
    cMapPacked: true,
    isEvalSupported: false,
    verbosity: process.env.OCR_PDFJS_VERBOSE ? 1 : 0,
  });
  let doc: PDFDocumentProxy;
  try {
    doc = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => {});
    throw translateOpenError(error, source, password);
  }
  return new PdfDocument(pdfjs, doc, source);
}

function translateOpenError(error: unknown, source: string, password?: string): InputError {
  const e = error as { name?: string; code?: number; message?: string };
  if (e?.name === "PasswordException") {
    if (e.code === INCORRECT_PASSWORD || (e.code === NEED_PASSWORD && password)) {
      return new InputError("PASSWORD_WRONG", "encrypted PDF: the password given is wrong", source, { cause: error });
    }
    return new InputError("PASSWORD_REQUIRED", "encrypted PDF: a password is required (use --password)", source, {
      cause: error,
    });
  }
  const detail = e?.message ? `: ${e.message}` : "";
  return new InputError("CORRUPT_PDF", `corrupt or truncated PDF${detail}`, source, { cause: error });
}

class PdfDocument implements OpenedDocument {
  readonly kind = "pdf" as const;
  readonly pageCount: number;
  private rendered = 0;
  constructor(
    private readonly pdfjs: Pdfjs,
    private readonly doc: PDFDocumentProxy,
    readonly source: string,
  ) {
    this.pageCount = doc.numPages;
  }

  private async page(pageNumber: number): Promise<PDFPageProxy> {
    if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > this.pageCount) {
      throw new InputError("PAGE_RANGE", `page ${pageNumber} does not exist (document has ${this.pageCount})`, this.source);
    }
    try {
      return await this.doc.getPage(pageNumber);
    } catch (error) {
      throw new InputError("CORRUPT_PDF", `page ${pageNumber} cannot be read: ${(error as Error).message}`, this.source, {
        cause: error,
      });
    }
  }

  async pageSize(pageNumber: number): Promise<PageSize> {
    const viewport = (await this.page(pageNumber)).getViewport({ scale: 1 });
    return { width: viewport.width, height: viewport.height, unit: "pt" };
  }

  async renderPage(pageNumber: number, options: RenderOptions = {}): Promise<RasterPage> {
    const page = await this.page(pageNumber);
    const dpi = options.dpi ?? DEFAULT_DPI;
    const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
    const unit = page.getViewport({ scale: 1 });
    const warnings: string[] = [];
    const { width, height, scale, capped, wanted } = pdfRasterSize(unit.width, unit.height, dpi, maxPixels);
    if (capped) {
      warnings.push(
        `page ${pageNumber} at ${dpi} DPI would be ${wanted.width}x${wanted.height} pixels, over the pixel cap; ` +
          `rendered at ${Math.floor(scale * 72)} DPI (${width}x${height}) instead`,
      );
    }
    const viewport = page.getViewport({ scale });
    const factory = this.doc.canvasFactory as {
      create(w: number, h: number): { canvas: unknown; context: CanvasLike };
      destroy(entry: unknown): void;
    };
    const entry = factory.create(width, height);
    try {
      const context = entry.context;
      context.fillStyle = "#ffffff";
      context.fillRect(0, 0, width, height);
      await page.render({
        canvas: entry.canvas as never,
        canvasContext: context as never,
        viewport,
        background: "#ffffff",
      }).promise;
      const image = context.getImageData(0, 0, width, height);
      return { width, height, channels: 3, data: rgbaToRgb(image.data, width, height), dpi: scale * 72, scale, warnings };
    } catch (error) {
      if (error instanceof InputError) throw error;
      throw new InputError("RENDER_FAILED", `page ${pageNumber} failed to render: ${(error as Error).message}`, this.source, {
        cause: error,
      });
    } finally {
      factory.destroy(entry);
      page.cleanup();
      // Memory must not grow with the page count (PDF_CACHE_PAGES). pdfjs refuses while another page of this
      // document is rendering; then the next page tries again.
      if (++this.rendered >= PDF_CACHE_PAGES) {
        try {
          await this.doc.cleanup();
          this.rendered = 0;
        } catch {
          // a render in flight: retry after the next page
        }
      }
    }
  }

  async textContent(pageNumber: number): Promise<PageText> {
    const page = await this.page(pageNumber);
    const viewport = page.getViewport({ scale: 1 });
    let content;
    try {
      content = await page.getTextContent();
    } catch (error) {
      throw new InputError("CORRUPT_PDF", `page ${pageNumber} text cannot be read: ${(error as Error).message}`, this.source, {
        cause: error,
      });
    }
    const runs: TextRun[] = [];
    for (const item of content.items) {
      if (!("str" in item)) continue;
      // Text space → viewport (top-left origin, page rotation applied).
      const m = this.pdfjs.Util.transform(viewport.transform, item.transform) as number[];
      const fontSize = Math.hypot(m[2]!, m[3]!);
      const style = content.styles[item.fontName];
      runs.push({
        text: item.str,
        x: m[4]!,
        baseline: m[5]!,
        width: item.width,
        fontSize,
        fontName: item.fontName,
        fontFamily: style?.fontFamily ?? "",
        // pdfjs reports 0/0 or absurd values for fonts without metrics; keep only plausible ones.
        ascent: style && style.ascent > 0.3 && style.ascent < 1.5 ? style.ascent : undefined,
        descent: style && style.descent < 0 && style.descent > -1 ? style.descent : undefined,
        endOfLine: item.hasEOL,
        direction: item.dir,
      });
    }
    return { width: viewport.width, height: viewport.height, runs };
  }

  async metadata(): Promise<DocumentMetadata> {
    const info: Record<string, string | number | boolean> = {};
    try {
      const meta = await this.doc.getMetadata();
      for (const [key, value] of Object.entries((meta.info ?? {}) as Record<string, unknown>)) {
        if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") info[key] = value;
      }
    } catch {
      // A broken Info dictionary is not worth failing the document for.
    }
    let outline: OutlineEntry[] = [];
    try {
      const raw = await this.doc.getOutline();
      const convert = (items: { title: string; items: unknown[] }[] | null): OutlineEntry[] =>
        (items ?? []).map((item) => ({
          title: item.title,
          children: convert(item.items as { title: string; items: unknown[] }[]),
        }));
      outline = convert(raw as { title: string; items: unknown[] }[] | null);
    } catch {
      outline = [];
    }
    return { info, outline };
  }

  async close(): Promise<void> {
    await this.doc.destroy();
  }
}

interface CanvasLike {
  fillStyle: string;
  fillRect(x: number, y: number, w: number, h: number): void;
  getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
}
