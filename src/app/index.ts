// Public surface of src/app: the batch runner, its events and settings, with the page engines it runs
// (the engine registry, their settings and errors, the text engine's layout) from src/engines.
export { jobsForMemory, runBatch, readPathList, type BatchRequest } from "./run.js";
export { parse, parseEvents, ParseError, type ParseEvent, type ParseOptions } from "./parse.js";
export type { EventSink, RunEvent, RunSummary } from "./events.js";
export {
  getEngine,
  registerEngine,
  registeredEngines,
  type DecodeContext,
  type DecodedPage,
  type EngineDefinition,
  type DocumentPages,
  type ModelIdentity,
  type PageEngine,
} from "../engines/engine.js";
export { resultSettings, stableHash, type RunSettings } from "./settings.js";
export { defaultModelOptions, type EngineSettings, type ModelOptions, type ServerSettings } from "../engines/settings.js";
export type { OutputFormat } from "../output/paths.js";
export { EnvironmentError, ExitCode, UsageError } from "../engines/errors.js";
export { defaultModelDir } from "../engines/model/bundle.js";
export { blockStats, headingLevels, layoutBlocks, layoutPage } from "../engines/text/layout.js";
export { buildWords, pageBlocks, type TextBlock, type TextLine, type Word } from "../engines/text/blocks.js";
