// Public surface of the native decoder's binding.
export { Decoder, Session, nativeConfig, RUNNER_UPS } from "./decoder.js";
export type {
  AttentionPolicy,
  DecoderOptions,
  ExtendInput,
  ExtendOptions,
  ExtendResult,
  GenerateOptions,
  GenerateResult,
  KernelChoice,
  KvDtype,
  WeightPages,
  NoRepeatRule,
  SessionOptions,
  SessionStats,
  TokenStream,
  FocalOptions,
  Fixation,
} from "./decoder.js";
export { DecoderError } from "./errors.js";
export { AddonLoadError, loadAddon, addonPath, loadBenchAddon, benchAddonPath } from "./binding.js";
