// Public surface of src/app: the batch runner, its events, settings, and the page-decoder registry.
export { jobsForMemory, runBatch, readPathList, type BatchRequest } from "./run.js";
export { parse, parseEvents, ParseError, type ParseEvent, type ParseOptions } from "./parse.js";
export type { EventSink, RunEvent, RunSummary } from "./events.js";
export {
  getDecoder,
  registerDecoder,
  registeredDecoders,
  type DecodeContext,
  type DecodedPage,
  type DecoderDefinition,
  type DocumentPages,
  type ModelIdentity,
  type PageDecoder,
} from "./decoder.js";
export { defaultModelOptions, resultSettings, stableHash, type ModelOptions, type OutputFormat, type RunSettings } from "./settings.js";
export { EnvironmentError, ExitCode, UsageError } from "./errors.js";
export { defaultModelDir } from "./engines/model.js";
export { blockStats, headingLevels, layoutBlocks, layoutPage } from "./text-layout.js";
export { buildWords, pageBlocks, type TextBlock, type TextLine, type Word } from "./text-blocks.js";
