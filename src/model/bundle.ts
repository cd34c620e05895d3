// Loads a model bundle folder (docs/bundle.md): model.json, decoder weights headers, tokenizer and encoder paths, all validated.
import { access, readFile } from "node:fs/promises";
import path from "node:path";
import { ModelFileError } from "./errors.js";
import { isQuantizable } from "./quantize.js";
import { readWeightsIndex, type TensorInfo } from "./safetensors.js";
import { validateModelJson, type DecoderConfig, type ModelJson } from "./schema.js";

export interface Bundle {
  dir: string;
  json: ModelJson;
  modelJsonPath: string;
  encoderPath: string;
  tokenizerPath: string;
  /** every tensor in the weights, by HF name (the encoder's own tensors of a real checkpoint included) */
  tensors: Map<string, TensorInfo>;
  /** decoder parameter count (from the expected tensor list) */
  decoderParameters: number;
}

/** Names and shapes the decoder needs, from its config (HF DeepSeek-V2 layout). */
export function expectedDecoderTensors(cfg: DecoderConfig, vision: { rowNewline: boolean; viewSeparator: boolean }): Map<string, number[]> {
  const h = cfg.hidden_size;
  const qDim = cfg.num_attention_heads * cfg.head_dim;
  const kvDim = cfg.num_key_value_heads * cfg.head_dim;
  const t = new Map<string, number[]>();
  t.set("model.embed_tokens.weight", [cfg.vocab_size, h]);
  for (let l = 0; l < cfg.num_hidden_layers; l++) {
    const p = `model.layers.${l}`;
    t.set(`${p}.input_layernorm.weight`, [h]);
    t.set(`${p}.post_attention_layernorm.weight`, [h]);
    t.set(`${p}.self_attn.q_proj.weight`, [qDim, h]);
    t.set(`${p}.self_attn.k_proj.weight`, [kvDim, h]);
    t.set(`${p}.self_attn.v_proj.weight`, [kvDim, h]);
    t.set(`${p}.self_attn.o_proj.weight`, [h, qDim]);
    const moe = cfg.n_routed_experts > 0 && l >= cfg.first_k_dense_replace;
    if (!moe) {
      t.set(`${p}.mlp.gate_proj.weight`, [cfg.intermediate_size, h]);
      t.set(`${p}.mlp.up_proj.weight`, [cfg.intermediate_size, h]);
      t.set(`${p}.mlp.down_proj.weight`, [h, cfg.intermediate_size]);
      continue;
    }
    t.set(`${p}.mlp.gate.weight`, [cfg.n_routed_experts, h]);
    for (let e = 0; e < cfg.n_routed_experts; e++) {
      t.set(`${p}.mlp.experts.${e}.gate_proj.weight`, [cfg.moe_intermediate_size, h]);
      t.set(`${p}.mlp.experts.${e}.up_proj.weight`, [cfg.moe_intermediate_size, h]);
      t.set(`${p}.mlp.experts.${e}.down_proj.weight`, [h, cfg.moe_intermediate_size]);
    }
    if (cfg.n_shared_experts > 0) {
      const shared = cfg.n_shared_experts * cfg.moe_intermediate_size;
      t.set(`${p}.mlp.shared_experts.gate_proj.weight`, [shared, h]);
      t.set(`${p}.mlp.shared_experts.up_proj.weight`, [shared, h]);
      t.set(`${p}.mlp.shared_experts.down_proj.weight`, [h, shared]);
    }
  }
  t.set("model.norm.weight", [h]);
  if (!cfg.tie_word_embeddings) t.set("lm_head.weight", [cfg.vocab_size, h]);
  if (vision.rowNewline) t.set("model.image_newline", [h]);
  if (vision.viewSeparator) t.set("model.view_seperator", [h]);
  return t;
}

async function mustExist(file: string, what: string): Promise<void> {
  try {
    await access(file);
  } catch {
    throw new ModelFileError(file, `${what} is missing`);
  }
}

/** Reads and checks a bundle folder; throws ModelFileError naming the file and the problem. */
export async function loadBundle(dir: string): Promise<Bundle> {
  const abs = path.resolve(dir);
  const modelJsonPath = path.join(abs, "model.json");
  let text: string;
  try {
    text = await readFile(modelJsonPath, "utf8");
  } catch (err) {
    throw new ModelFileError(modelJsonPath, "not a model bundle (model.json is missing or unreadable)", { cause: err });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ModelFileError(modelJsonPath, `not valid JSON (${(err as Error).message})`);
  }
  const json = validateModelJson(parsed, modelJsonPath);
  const encoderPath = path.join(abs, json.vision.encoder);
  const tokenizerPath = path.join(abs, "tokenizer.json");
  await mustExist(encoderPath, "the vision encoder named by vision.encoder");
  await mustExist(tokenizerPath, "the tokenizer (tokenizer.json)");
  const lines = json.vision.lines;
  if (lines) {
    await mustExist(path.join(abs, lines.detector), "the text-line detector named by vision.lines.detector");
    await mustExist(path.join(abs, lines.recogniser), "the line recogniser named by vision.lines.recogniser");
    await mustExist(path.join(abs, lines.dictionary), "the recogniser's classes named by vision.lines.dictionary");
  }
  const tensors = await readWeightsIndex(abs, json.decoder.weights);
  const expected = expectedDecoderTensors(json.decoder, {
    rowNewline: json.vision.row_newline,
    viewSeparator: json.vision.view_separator,
  });
  let decoderParameters = 0;
  const weightsName = json.decoder.weights.join(", ");
  for (const [name, shape] of expected) {
    const info = tensors.get(name);
    if (!info) throw new ModelFileError(path.join(abs, weightsName), `decoder tensor ${name} is missing`);
    if (info.shape.length !== shape.length || info.shape.some((d, i) => d !== shape[i]))
      throw new ModelFileError(info.file, `tensor ${name} has shape [${info.shape}], model.json implies [${shape}]`);
    if (info.quant) {
      if (!isQuantizable(name))
        throw new ModelFileError(info.file, `tensor ${name} is ${info.quant}; norms, the router and embeddings must stay float`);
    } else if (info.dtype !== "F32" && info.dtype !== "F16" && info.dtype !== "BF16")
      throw new ModelFileError(
        info.file,
        `tensor ${name} is ${info.dtype}; decoder weights must be F32, F16 or BF16 (or q8_0 / q4_1 matrices)`,
      );
    decoderParameters += shape.reduce((a, b) => a * b, 1);
  }
  return { dir: abs, json, modelJsonPath, encoderPath, tokenizerPath, tensors, decoderParameters };
}
