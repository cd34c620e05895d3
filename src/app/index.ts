// Public surface of src/app: the batch runner, its events and settings, and the page-engine seam it runs
// (registry, settings and errors) from src/engines.
export { jobsForMemory, planParallelism, runBatch, type BatchRequest } from "./run.js";
export { parse, parseEvents, ParseError, type ParseEvent, type ParseOptions } from "./parse.js";
export type { EventSink, RunEvent, RunSummary } from "./events.js";
export {
  registerEngine,
  type DecodeContext,
  type DecodedPage,
  type EngineDefinition,
  type DocumentPages,
  type ModelIdentity,
  type PageEngine,
} from "../engines/engine.js";
export type { RunSettings } from "./settings.js";
export { defaultModelOptions, type EngineSettings, type ModelOptions, type ServerSettings } from "../engines/settings.js";
export type { OutputFormat } from "../output/paths.js";
export { EnvironmentError, ExitCode, UsageError } from "../engines/errors.js";
