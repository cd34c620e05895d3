// Public surface of the decoding engine.
export { Engine, Session, nativeConfig } from "./engine.js";
export type {
  AttentionPolicy, EngineOptions, ExtendInput, ExtendOptions, ExtendResult, GenerateOptions, GenerateResult, KernelChoice,
  KvDtype, NoRepeatRule, SessionOptions, SessionStats, TokenStream, FocalOptions, Fixation,
} from "./engine.js";
export { EngineError } from "./errors.js";
export { EngineLoadError, loadAddon, addonPath, loadBenchAddon, benchAddonPath } from "./binding.js";
