// Public shapes of an opened document: page sizes, text layer items, metadata.
import type { DocumentKind } from "./detect.js";
import type { RasterPage, RenderOptions } from "./raster.js";

/** A positioned run of text from a PDF's own text layer, in PDF points, origin top-left. */
export interface TextRun {
  text: string;
  /** Left edge of the run. */
  x: number;
  /** Baseline, measured down from the top of the page. */
  baseline: number;
  /** Advance width of the run. */
  width: number;
  /** Font size: the height of the text em square after all transforms. */
  fontSize: number;
  /** pdfjs' name for the font; equal names mean the same font. */
  fontName: string;
  /** Family guess from the font's own name (e.g. "serif", or the embedded font name). */
  fontFamily: string;
  /** Font ascent and descent as fractions of the font size (descent negative), when the font says. */
  ascent: number | undefined;
  descent: number | undefined;
  /** True when the PDF marked an end of line after this run. */
  endOfLine: boolean;
  /** "ltr", "rtl" or "ttb". */
  direction: string;
}

export interface PageText {
  /** Page size in points, after the page's /Rotate. */
  width: number;
  height: number;
  runs: TextRun[];
  /** Content the parser had to skip on this page (its text may be incomplete). */
  warnings?: string[];
}

export interface PageSize {
  /** PDF points (1/72 inch) for PDFs; pixels for images. */
  width: number;
  height: number;
  unit: "pt" | "px";
}

export interface OutlineEntry {
  title: string;
  children: OutlineEntry[];
}

export interface DocumentMetadata {
  /** Document information dictionary (Title, Author, Producer, …) or image properties. */
  info: Record<string, string | number | boolean>;
  outline: OutlineEntry[];
}

/**
 * A document opened for reading. Page numbers are 1-based everywhere.
 * Call close() when done; it frees the parser's memory.
 */
export interface OpenedDocument {
  readonly kind: DocumentKind;
  readonly pageCount: number;
  /** Path the bytes came from, or "-" for stdin. */
  readonly source: string;
  pageSize(pageNumber: number): Promise<PageSize>;
  renderPage(pageNumber: number, options?: RenderOptions): Promise<RasterPage>;
  /** The PDF's own text layer; undefined for images (they have none). */
  textContent(pageNumber: number): Promise<PageText | undefined>;
  metadata(): Promise<DocumentMetadata>;
  /**
   * The caller has what it needs for now (every page it reads is rendered): the parser's memory may go. A later call
   * opens the document again. Images hold no parser.
   */
  release?(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Password for encrypted PDFs. */
  password?: string;
  /** Name used in errors when the source is bytes (default "-"). */
  name?: string;
  /** PDFs: time budget of each step (opening, one page's load, render or text), in ms. */
  pageTimeoutMs?: number;
  /** PDFs: aborting stops the document's parser at once. */
  signal?: AbortSignal;
}
