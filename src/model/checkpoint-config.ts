// Maps a DeepSeek-OCR / Unlimited-OCR checkpoint's config.json to model.json, every default the reference code assumes made explicit.
import { BUNDLE_FORMAT, type DecoderConfig, type ModeSpec, type ModelFamily, type ModelJson } from "./schema.js";
import { OCR_SPECIAL_TOKENS } from "./tokenizer.js";

const specialId = (content: string): number => OCR_SPECIAL_TOKENS.find(([c]) => c === content)![1];

/** Preprocessing modes of DeepSeek-OCR: sizes and embedding grids (patch 16, 4x4 compression → size/64). */
export const DEEPSEEK_OCR_MODES: Record<string, ModeSpec> = {
  tiny: { size: [512, 512], resize: "stretch", grid: [8, 8] },
  small: { size: [640, 640], resize: "stretch", grid: [10, 10] },
  base: { size: [1024, 1024], resize: "pad", grid: [16, 16] },
  large: { size: [1280, 1280], resize: "pad", grid: [20, 20] },
  // global 1024 view plus 640 tiles chosen by aspect ratio; the reference's default tile range is 2..9
  gundam: {
    size: [1024, 1024],
    resize: "pad",
    grid: [16, 16],
    tiles: { size: [640, 640], grid: [10, 10], resize: "stretch", min_tiles: 2, max_tiles: 9 },
  },
};

/**
 * Unlimited-OCR's modes: DeepSeek-OCR's, with Gundam cutting 2 to 32 tiles (its reference's dynamic_preprocess
 * default, max_num=32). One page alone is read in Gundam; the pages of a multi-page pass get Base (infer_multi:
 * one padded 1024 view each, never tiles).
 */
export const UNLIMITED_OCR_MODES: Record<string, ModeSpec> = {
  ...DEEPSEEK_OCR_MODES,
  gundam: { ...DEEPSEEK_OCR_MODES.gundam!, tiles: { ...DEEPSEEK_OCR_MODES.gundam!.tiles!, max_tiles: 32 } },
};

/** The resolution the reference renders PDF pages at (DeepSeek-OCR's run_dpsk_ocr_pdf.py: 144 DPI, zoom 2). */
export const REFERENCE_DPI = 144;

export class CheckpointConfigError extends Error {}

function pick(config: Record<string, unknown>, key: string): unknown {
  const lang = config.language_config as Record<string, unknown> | undefined;
  if (lang && typeof lang === "object" && lang[key] !== undefined) return lang[key];
  return config[key];
}

function intOr(config: Record<string, unknown>, key: string, fallback: number | undefined): number {
  const v = pick(config, key) ?? fallback;
  if (typeof v !== "number" || !Number.isSafeInteger(v))
    throw new CheckpointConfigError(`config.json: ${key} is ${JSON.stringify(v)}, expected an integer`);
  return v;
}

function numOr(config: Record<string, unknown>, key: string, fallback: number): number {
  const v = pick(config, key) ?? fallback;
  if (typeof v !== "number" || !Number.isFinite(v))
    throw new CheckpointConfigError(`config.json: ${key} is ${JSON.stringify(v)}, expected a number`);
  return v;
}

/** The sliding window of an Unlimited-OCR config, or undefined for full attention. */
export function slidingWindowOf(config: Record<string, unknown>): number | undefined {
  for (const key of ["sliding_window_size", "sliding_window"]) {
    const v = pick(config, key);
    if (typeof v === "number" && v > 0) return v;
  }
  return undefined;
}

export interface CheckpointToBundleOptions {
  name: string;
  weights: string[];
  family?: ModelFamily;
  mode?: string;
  source?: ModelJson["source"];
}

/** Builds model.json for a checkpoint whose decoder weights are used in place. */
export function modelJsonFromCheckpointConfig(config: Record<string, unknown>, options: CheckpointToBundleOptions): ModelJson {
  const useMla = pick(config, "use_mla");
  if (useMla === true || typeof pick(config, "kv_lora_rank") === "number")
    throw new CheckpointConfigError(
      "config.json: multi-head latent attention (use_mla / kv_lora_rank) is not supported; DeepSeek-OCR uses plain multi-head attention",
    );
  const ropeScaling = pick(config, "rope_scaling");
  if (ropeScaling !== undefined && ropeScaling !== null)
    throw new CheckpointConfigError("config.json: rope_scaling is set; the engine implements unscaled rotary positions only");
  const moeFreq = pick(config, "moe_layer_freq");
  if (moeFreq !== undefined && moeFreq !== 1)
    throw new CheckpointConfigError(`config.json: moe_layer_freq ${JSON.stringify(moeFreq)} is not supported (only 1)`);
  const scoring = pick(config, "scoring_func") ?? "softmax";
  if (scoring !== "softmax") throw new CheckpointConfigError(`config.json: scoring_func ${JSON.stringify(scoring)} is not supported`);
  // the remote code's default spelling is "gready"; both mean plain top-k
  const topk = pick(config, "topk_method") ?? "greedy";
  if (topk !== "greedy" && topk !== "gready")
    throw new CheckpointConfigError(`config.json: topk_method ${JSON.stringify(topk)} is not supported`);

  const hidden = intOr(config, "hidden_size", 4096);
  const heads = intOr(config, "num_attention_heads", 32);
  const window = slidingWindowOf(config);
  const family: ModelFamily = options.family ?? (window !== undefined ? "unlimited-ocr" : "deepseek-ocr");
  const decoder: DecoderConfig = {
    vocab_size: intOr(config, "vocab_size", 102400),
    hidden_size: hidden,
    num_hidden_layers: intOr(config, "num_hidden_layers", 30),
    num_attention_heads: heads,
    num_key_value_heads: intOr(config, "num_key_value_heads", heads),
    // without MLA the reference sets head_dim = hidden_size / num_attention_heads
    head_dim: hidden / heads,
    intermediate_size: intOr(config, "intermediate_size", 11008),
    moe_intermediate_size: intOr(config, "moe_intermediate_size", 1407),
    n_routed_experts: (pick(config, "n_routed_experts") as number | null) ?? 0,
    num_experts_per_tok: (pick(config, "num_experts_per_tok") as number | null) ?? 0,
    n_shared_experts: (pick(config, "n_shared_experts") as number | null) ?? 0,
    first_k_dense_replace: intOr(config, "first_k_dense_replace", 0),
    norm_topk_prob: (pick(config, "norm_topk_prob") as boolean | undefined) ?? false,
    routed_scaling_factor: numOr(config, "routed_scaling_factor", 1.0),
    scoring_func: "softmax",
    topk_method: "greedy",
    rms_norm_eps: numOr(config, "rms_norm_eps", 1e-6),
    rope_theta: numOr(config, "rope_theta", 10000.0),
    max_position_embeddings: intOr(config, "max_position_embeddings", 2048),
    tie_word_embeddings: (pick(config, "tie_word_embeddings") as boolean | undefined) ?? false,
    weights: options.weights,
  };
  if (!Number.isInteger(decoder.head_dim))
    throw new CheckpointConfigError(`config.json: hidden_size ${hidden} is not a multiple of num_attention_heads ${heads}`);
  const td = specialId("<td>");
  const tdEnd = specialId("</td>");
  const unlimited = family === "unlimited-ocr";
  return {
    format: BUNDLE_FORMAT,
    name: options.name,
    family,
    decoder,
    vision: {
      encoder: "encoder.onnx",
      mode: options.mode ?? "gundam",
      ...(unlimited ? { document_mode: "base" } : {}),
      modes: unlimited ? UNLIMITED_OCR_MODES : DEEPSEEK_OCR_MODES,
      mean: [0.5, 0.5, 0.5],
      std: [0.5, 0.5, 0.5],
      pad_color: [127, 127, 127],
      row_newline: true,
      view_separator: true,
    },
    tokens: {
      bos: intOr(config, "bos_token_id", 0),
      eos: intOr(config, "eos_token_id", 1),
      pad: 2,
      image: specialId("<image>"),
    },
    prompts: unlimited
      ? { page: "<image>document parsing.", document: "<image>Multi page parsing." }
      : { page: "<image>\n<|grounding|>Convert the document to markdown." },
    layout: "prefix",
    attention: { kind: unlimited ? "rswa" : "full", window: window ?? 128 },
    decoding: {
      max_tokens_per_page: 8192,
      no_repeat_ngram: unlimited
        ? { n: 35, window: 128, document_window: 1024, exempt: [td, tdEnd] }
        : { n: 30, window: 90, exempt: [td, tdEnd] },
    },
    ...(options.source ? { source: options.source } : {}),
  };
}
