// The NAME.json document schema (versioned); README's "Output schema" section documents the same fields.

/** Bump the number on any change a reader could notice; readers check it. */
export const DOCUMENT_SCHEMA = "ocr-document/2";

export type BlockType =
  | "title"
  | "heading"
  | "paragraph"
  | "list-item"
  | "code"
  | "table"
  | "formula"
  | "figure"
  | "caption"
  | "footnote"
  | "header"
  | "footer"
  | "page-number"
  | "other";

/** A text line of a block: its text and its box in page pixels. */
export interface BlockLine {
  text: string;
  bbox: [number, number, number, number];
}

/** A table block's cells: rows × cols slots, each cell listed once at its top-left slot with its spans. */
export interface BlockTable {
  rows: number;
  cols: number;
  cells: { row: number; col: number; rowSpan: number; colSpan: number; header: boolean; text: string }[];
}

/** A region of a page: its role, its text (Markdown), and its box in page pixels [x0, y0, x1, y1]. Blocks are in reading order. */
export interface Block {
  /** The block's role (see BlockType). */
  type: BlockType | string;
  text: string;
  /** Left, top, right, bottom in the page's pixel space (origin top-left); null when unknown. */
  bbox: [number, number, number, number] | null;
  /** Heading level 1–6, for headings (and titles, 1) only. */
  level?: number;
  /** A list item's number or bullet as printed ("159.", "a)", "-"); its text follows without it. */
  marker?: string;
  /** The block's text lines with their boxes, in reading order (absent when the engine has no lines). */
  lines?: BlockLine[];
  /** A table's cell grid (table blocks only). */
  table?: BlockTable;
}

export interface PageRecord {
  /** 1-based page number in the source document. */
  page: number;
  /** Pixel size of the page at `dpi` (the space of every bbox on it). */
  width: number;
  height: number;
  /** Resolution the page was (or would be) rendered at; null for images, which keep their pixels. */
  dpi: number | null;
  markdown: string;
  blocks: Block[];
  truncated: boolean;
  tokenCount: number;
  /** Milliseconds per stage (render, encode, decode, …) and total. */
  timings: Record<string, number>;
  warnings: string[];
}

export interface DocumentRecord {
  schema: typeof DOCUMENT_SCHEMA;
  producer: { name: "ocr"; version: string };
  source: {
    /** Path as given on the command line (or "-" for stdin). */
    path: string;
    kind: string;
    bytes: number;
    sha256: string;
    pageCount: number;
  };
  /** Settings that shape the results (engine, dpi, pages, model options). */
  settings: Record<string, unknown>;
  model: { name: string; dir: string | null; id: string } | null;
  /** Hash of source, settings and model: equal keys mean --resume may skip the document. */
  resumeKey: string;
  pages: PageRecord[];
  warnings: string[];
  /**
   * The document's wall clock; `processStartMs` (process start to the run's start: Node, imports, CLI) and
   * `modelLoadMs` (opening the model: decoder weights, ONNX sessions) are the run's, paid once per process.
   */
  timings: { startedAt: string; finishedAt: string; totalMs: number; processStartMs?: number; modelLoadMs?: number };
}
