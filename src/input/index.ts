// Public surface of src/input: open documents, rasterise pages, read text layers, find files.
export { openDocument, readDocumentBytes } from "./document.js";
export { closePdfWorkers, DEFAULT_PAGE_TIMEOUT_MS, expectPdfDocuments, warmPdfWorker } from "./pdf.js";
export { sniffKind, type DocumentKind } from "./detect.js";
export { InputError, isInputError, type InputErrorCode } from "./errors.js";
export {
  DEFAULT_DPI,
  DEFAULT_MAX_PIXELS,
  pixelSize,
  renderedSize,
  type RasterPage,
  type RenderOptions,
} from "./raster.js";
export type {
  DocumentMetadata,
  OpenedDocument,
  OpenOptions,
  OutlineEntry,
  PageSize,
  PageText,
  TextRun,
} from "./types.js";
export { formatPageSelection, parsePageSelection, resolvePages, type PageRange } from "./pages.js";
export {
  discoverDocuments,
  parsePathList,
  DOCUMENT_EXTENSIONS,
  type DiscoveredDocument,
  type Discovery,
  type DiscoveryOptions,
  type DiscoveryProblem,
} from "./discover.js";
