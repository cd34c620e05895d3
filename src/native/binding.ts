// The one typed seam to the native addons: declares everything they export.
// - build/native/Release/ocr_decoder.node: the product (NativeDecoder, NativeSession); `ocr parse` loads only this one.
// - build/native/Release/ocr_bench.node: the op-level testing surface and the bandwidth probe, for the kernel tests
//   and `ocr bench decoder` (loadBenchAddon).
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

export type NativeDtype = "f32" | "f16" | "bf16";

/** Decoder numbers the native decoder reads: the `decoder` section of model.json, less what only the loader uses. */
export interface NativeDecoderConfig {
  vocab_size: number;
  hidden_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  head_dim: number;
  intermediate_size: number;
  moe_intermediate_size: number;
  n_routed_experts: number;
  num_experts_per_tok: number;
  n_shared_experts: number;
  first_k_dense_replace: number;
  norm_topk_prob: boolean;
  routed_scaling_factor: number;
  rms_norm_eps: number;
  rope_theta: number;
  tie_word_embeddings: boolean;
}

/** The keys of NativeDecoderConfig, in the order decoder_wrap.cpp reads them. */
export const NATIVE_DECODER_KEYS = [
  "vocab_size",
  "hidden_size",
  "num_hidden_layers",
  "num_attention_heads",
  "num_key_value_heads",
  "head_dim",
  "intermediate_size",
  "moe_intermediate_size",
  "n_routed_experts",
  "num_experts_per_tok",
  "n_shared_experts",
  "first_k_dense_replace",
  "norm_topk_prob",
  "routed_scaling_factor",
  "rms_norm_eps",
  "rope_theta",
  "tie_word_embeddings",
] as const satisfies readonly (keyof NativeDecoderConfig)[];

export interface NativeDecoderInfo {
  kernels: string;
  threads: number;
  mappedBytes: number;
  /** of mappedBytes, those copied into anonymous memory at load (DecoderOptions.pages) */
  copiedBytes: number;
  decodeWeightBytes: number;
  /** the decoder matrices' type: q8_0 / q4_1 in a quantised bundle */
  weightDtype: NativeDtype | "q8_0" | "q4_1";
  /** the embedding's (always float) */
  embedDtype: NativeDtype;
}

export interface NativeDecoder {
  info(): NativeDecoderInfo;
  hugePageBytes(): number;
}

export interface NativeExtendResult {
  logits: Float32Array;
  hidden?: Float32Array;
}

export interface NativeGenerateOptions {
  maxTokens: number;
  stopTokens: Int32Array;
  noRepeat?: { n: number; lookback: number; exempt: Int32Array };
  /** One cap per vocabulary id (0 = none). */
  maxRun?: Int32Array;
  /** Tokens never generated in the call. */
  ban?: Int32Array;
  /** Report each token's runner-up and margin in the result. */
  alternatives?: boolean;
}

export interface NativeSession {
  /** tokens[i] < 0 takes the next row of `embeds` ([rows, hidden]). */
  extend(tokens: Int32Array, embeds: Float32Array | null, capture: { hidden: boolean; allLogits: boolean }): Promise<NativeExtendResult>;
  retire(begin: number, end: number): Promise<void>;
  generate(
    options: NativeGenerateOptions,
    onTokens: (tokens: Int32Array) => void,
  ): Promise<{ reason: "stop" | "length" | "cancelled"; count: number; runnerUps?: Int32Array; margins?: Float32Array }>;
  cancel(): void;
  stats(): {
    length: number;
    liveEntries: number;
    cacheBytes: number;
    busy: boolean;
    decodeSteps: number;
    decodeMs: number;
    attentionMs: number;
    focalLayers: number[];
  };
  takeFixations(): { position: number; visual: Float64Array }[];
  setFocal(focal: { keep: number; layers: number; warmup: number } | null): void;
  lastLogits(): Float32Array;
  dispose(): void;
}

export interface NativeTesting {
  linearRows(
    kernels: string,
    x: Float32Array,
    n: number,
    inFeatures: number,
    wDtype: NativeDtype | "q8_0" | "q4_1",
    w: Uint8Array,
    o0: number,
    o1: number,
  ): Float32Array;
  attention(
    kernels: string,
    q: Float32Array,
    nq: number,
    heads: number,
    kvHeads: number,
    headDim: number,
    kvDtype: NativeDtype,
    k: Float32Array,
    v: Float32Array,
    slots: Int32Array,
    visible: Int32Array,
    threads: number,
    path?: "auto" | "per-query" | "blocked",
  ): Float32Array;
  siluMul(kernels: string, g: Float32Array, u: Float32Array): Float32Array;
  routeTopk(logits: Float32Array, k: number, normTopk: boolean, scale: number): { ids: Int32Array; weights: Float32Array };
  focalSelect(probs: Float32Array, heads: number, k: number, reference: boolean): Int32Array;
  toDtype(dtype: NativeDtype, x: Float32Array): Uint8Array;
  measureBandwidth(megabytes: number, threads: number, repeats: number): number;
  /**
   * Turns the int8-activation decode path for quantised weights on or off; returns whether it now runs for kernel set
   * `set` (default: for any set).
   */
  setInt8Decode(on: boolean, set?: string): boolean;
  /** turns the AVX512-VBMI q4_1 decode loop on or off; whether it now runs (false where the CPU lacks VBMI) */
  setInt8Q4Vbmi(on: boolean): boolean;
}

export interface NativeAddon {
  NativeDecoder: new (
    config: NativeDecoderConfig,
    weightPaths: string[],
    options: { threads: number; kernels: string; minParallelWork?: number; pages?: string },
  ) => NativeDecoder;
  NativeSession: new (
    decoder: NativeDecoder,
    options: { kvDtype: NativeDtype; window: number; focal?: { keep: number; layers: number; warmup: number }; recordFixations?: boolean },
  ) => NativeSession;
  cpuFeatures: string;
}

/** The bench/test addon: op-level kernels on JS buffers and the bandwidth probe. */
export interface NativeBenchAddon {
  cpuFeatures: string;
  testing: NativeTesting;
}

/** The addon could not be loaded; the message says what to run. */
export class AddonLoadError extends Error {
  readonly code = "ADDON_MISSING";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AddonLoadError";
  }
}

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const addonPath = process.env.OCR_DECODER_ADDON ?? path.join(packageRoot, "build/native/Release/ocr_decoder.node");
export const benchAddonPath = process.env.OCR_BENCH_ADDON ?? path.join(packageRoot, "build/native/Release/ocr_bench.node");

const rebuild =
  "run `npm rebuild ocr` or, in the package folder, `npx cmake-js compile --directory native --out build/native` (needs cmake and g++)";

function load<T>(file: string, what: string): T {
  if (!existsSync(file)) throw new AddonLoadError(`${what} is not built (${file} is missing): ${rebuild}`);
  try {
    return createRequire(import.meta.url)(file) as T;
  } catch (err) {
    throw new AddonLoadError(`${what} at ${file} failed to load (${(err as Error).message}): ${rebuild}`, { cause: err });
  }
}

let cached: NativeAddon | undefined;
let cachedBench: NativeBenchAddon | undefined;

/** Loads the product addon once; throws AddonLoadError with the command to build it. */
export function loadAddon(): NativeAddon {
  cached ??= load<NativeAddon>(addonPath, "the native decoder");
  return cached;
}

/** Loads the bench/test addon once (kernel tests, `ocr bench decoder`); the product never calls this. */
export function loadBenchAddon(): NativeBenchAddon {
  cachedBench ??= load<NativeBenchAddon>(benchAddonPath, "the native bench addon");
  return cachedBench;
}
