// Public programmatic API of the ocr package: open and render documents, run batches, read results.
export const VERSION = "0.1.0";

export {
  openDocument,
  discoverDocuments,
  parsePageSelection,
  resolvePages,
  InputError,
  type OpenedDocument,
  type RasterPage,
  type RenderOptions,
  type PageText,
  type TextRun,
} from "./input/index.js";
export {
  parse,
  parseEvents,
  ParseError,
  type ParseEvent,
  type ParseOptions,
  runBatch,
  registerEngine,
  defaultModelOptions,
  ExitCode,
  UsageError,
  EnvironmentError,
  type BatchRequest,
  type RunEvent,
  type RunSummary,
  type RunSettings,
  type PageEngine,
  type DecodedPage,
  type DocumentPages,
} from "./app/index.js";
export { DOCUMENT_SCHEMA, type DocumentRecord, type PageRecord, type Block } from "./output/index.js";
