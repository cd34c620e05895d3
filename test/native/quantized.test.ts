// Quantised decoding end to end: a random bf16 DeepSeek-V2-shape decoder (dense layer, routed + shared experts, untied
// lm_head), quantised by `ocr models quantize`'s code to q8_0 and q4_1, run by the native decoder.
//
// 1. The quantised kernels compute the model the blocks stand for: the q8 / q4 bundle's logits equal those of the same
//    decoder on an f32 copy of the dequantised weights up to summation order (NMSE < 1e-9).
// 2. What quantisation costs, against bf16: last-layer logits NMSE over a 96-token prefill, reported and bounded.
//    The bound: rounding to a block's grid is, to first order, an error independent of the weight and of zero mean
//    (d^2 / 12 per weight: 2.8e-5 of the weights' power for q8_0, 6.1e-3 for q4_1 on Gaussian blocks). What the logits
//    see of it depends on the network (attention sharpness, MoE routing flips), so the yardstick is the same network
//    with exactly those errors under random signs (independent of the weights, same magnitudes), mean of three draws.
//    A single draw's NMSE scatters around that mean because a few routing flips dominate it (four equal-power
//    perturbations of this model gave 2.5-3.9e-4 at q8_0, a 1.6x spread), so quantisation may reach 3x the yardstick; a
//    quantiser fault (a wrong scale or minimum, biased rounding) costs an error of the weights' own size instead.
//    The same holds for decode steps (16 tokens fed one at a time), whose matrix-vector path on a CPU with AVX-VNNI
//    also rounds the activations to int8 blocks (NMSE ~1.4e-5 per product, half the q8_0 weights' own).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Decoder, loadBenchAddon } from "../../src/native/index.js";
import { dequantizeRows, isQuantizable, quantizeBundle, quantRowBytes, quantizeRows } from "../../src/model/quantize.js";
import type { QuantFormat } from "../../src/model/safetensors.js";
import { nmse } from "./helpers.js";

const decoder = {
  vocab_size: 512,
  hidden_size: 256,
  num_hidden_layers: 4,
  num_attention_heads: 4,
  num_key_value_heads: 4,
  head_dim: 64,
  intermediate_size: 512,
  moe_intermediate_size: 128,
  n_routed_experts: 16,
  num_experts_per_tok: 4,
  n_shared_experts: 2,
  first_k_dense_replace: 1,
  norm_topk_prob: false,
  routed_scaling_factor: 1.0,
  scoring_func: "softmax",
  topk_method: "greedy",
  rms_norm_eps: 1e-6,
  rope_theta: 10000.0,
  max_position_embeddings: 4096,
  tie_word_embeddings: false,
  weights: ["model.safetensors"],
};

function gaussian(seed: number): () => number {
  let s = seed >>> 0;
  const u = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32 + 2 ** -33;
  };
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

interface Tensor {
  name: string;
  shape: number[];
  data: Float32Array;
}

/** Every decoder tensor with its HF name; matrices N(0, 1/fan_in), embeddings N(0, 1), norms 1. Values bf16-exact. */
function randomDecoder(seed: number): Tensor[] {
  const g = gaussian(seed);
  const H = decoder.hidden_size;
  const out: Tensor[] = [];
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  const bf16 = (v: number) => {
    f[0] = v;
    const b = u[0]!;
    u[0] = ((b + 0x7fff + ((b >>> 16) & 1)) & 0xffff0000) >>> 0;
    return f[0]!;
  };
  const mat = (name: string, rows: number, cols: number, std = 1 / Math.sqrt(cols)) =>
    out.push({ name, shape: [rows, cols], data: Float32Array.from({ length: rows * cols }, () => bf16(g() * std)) });
  const ones = (name: string) => out.push({ name, shape: [H], data: new Float32Array(H).fill(1) });
  mat("model.embed_tokens.weight", decoder.vocab_size, H, 1);
  for (let l = 0; l < decoder.num_hidden_layers; l++) {
    const p = `model.layers.${l}`;
    ones(`${p}.input_layernorm.weight`);
    ones(`${p}.post_attention_layernorm.weight`);
    for (const k of ["q", "k", "v"]) mat(`${p}.self_attn.${k}_proj.weight`, decoder.num_attention_heads * decoder.head_dim, H);
    mat(`${p}.self_attn.o_proj.weight`, H, decoder.num_attention_heads * decoder.head_dim);
    const mlp = (prefix: string, inter: number) => {
      mat(`${prefix}.gate_proj.weight`, inter, H);
      mat(`${prefix}.up_proj.weight`, inter, H);
      mat(`${prefix}.down_proj.weight`, H, inter);
    };
    if (l < decoder.first_k_dense_replace) mlp(`${p}.mlp`, decoder.intermediate_size);
    else {
      mat(`${p}.mlp.gate.weight`, decoder.n_routed_experts, H);
      for (let e = 0; e < decoder.n_routed_experts; e++) mlp(`${p}.mlp.experts.${e}`, decoder.moe_intermediate_size);
      mlp(`${p}.mlp.shared_experts`, decoder.moe_intermediate_size * decoder.n_shared_experts);
    }
  }
  ones("model.norm.weight");
  mat("lm_head.weight", decoder.vocab_size, H);
  return out;
}

/** A decoder-only bundle: model.json + model.safetensors in `dtype` (BF16 or F32). */
function writeBundle(dir: string, tensors: Tensor[], dtype: "BF16" | "F32"): string {
  const size = dtype === "BF16" ? 2 : 4;
  const header: Record<string, unknown> = {};
  let offset = 0;
  for (const t of tensors) {
    header[t.name] = { dtype, shape: t.shape, data_offsets: [offset, offset + t.data.length * size] };
    offset += t.data.length * size;
  }
  let text = JSON.stringify(header);
  text += " ".repeat((8 - (text.length % 8)) % 8);
  const buf = Buffer.alloc(8 + text.length + offset);
  buf.writeBigUInt64LE(BigInt(text.length));
  buf.write(text, 8, "utf8");
  let o = 8 + text.length;
  for (const t of tensors) {
    const bits = new Uint32Array(t.data.buffer, t.data.byteOffset, t.data.length);
    for (let i = 0; i < t.data.length; i++, o += size) {
      if (dtype === "BF16") buf.writeUInt16LE(bits[i]! >>> 16, o);
      else buf.writeFloatLE(t.data[i]!, o);
    }
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "model.safetensors"), buf);
  writeFileSync(path.join(dir, "model.json"), JSON.stringify({ decoder }));
  return dir;
}

const int8Decode = loadBenchAddon().testing.setInt8Decode(true);
const prompt = Array.from({ length: 96 }, (_, i) => (i === 0 ? 0 : 5 + ((i * 131 + 17) % 500)));

/** Prefill logits of every prompt token (matrix-matrix work), or, with `steps`, the last `steps` prompt tokens fed one
 * at a time after the rest (matrix-vector work: the decode path, int8 activations on quantised weights where the CPU
 * has AVX-VNNI), their logits concatenated. */
async function logits(dir: string, steps = 0): Promise<Float32Array> {
  const decoder = await Decoder.load(dir, { threads: 2 });
  const session = decoder.createSession({ kvDtype: "f32" });
  let out: Float32Array;
  if (steps === 0) out = (await session.prefill({ tokens: prompt }, { allLogits: true })).logits;
  else {
    await session.prefill({ tokens: prompt.slice(0, prompt.length - steps) });
    const parts: Float32Array[] = [];
    for (const tok of prompt.slice(prompt.length - steps)) parts.push((await session.extend({ tokens: [tok] })).logits);
    out = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
  }
  session.dispose();
  return out;
}

let root: string;
let base: Tensor[];
let bf16Logits: Float32Array;
let bf16Steps: Float32Array;
const STEPS = 16;
const formats: [QuantFormat, "q8" | "q4"][] = [
  ["q8_0", "q8"],
  ["q4_1", "q4"],
];

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "ocr-quant-"));
  base = randomDecoder(7);
  writeBundle(path.join(root, "bf16"), base, "BF16");
  bf16Logits = await logits(path.join(root, "bf16"));
  bf16Steps = await logits(path.join(root, "bf16"), STEPS);
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.each(formats)("a %s decoder", (format, to) => {
  it("is the model its blocks stand for: logits equal the f32 decoder on the dequantised weights", async () => {
    const r = await quantizeBundle(path.join(root, "bf16"), { to, out: path.join(root, to) });
    expect(r.format).toBe(format);
    // q/k/v/o and gate/up/down of every layer and expert, and lm_head; never the router, norms or embedding
    expect(r.quantized).toBe(base.filter((t) => isQuantizable(t.name)).length);
    const dequantised = base.map((t) => {
      if (!isQuantizable(t.name)) return t;
      const [rows, cols] = t.shape as [number, number];
      const q = new Uint8Array(rows * quantRowBytes(format, cols));
      quantizeRows(format, t.data, rows, cols, q);
      return { ...t, data: dequantizeRows(format, q, rows, cols) };
    });
    const dir = path.join(root, `${to}-dequantised`);
    writeBundle(dir, dequantised, "F32");
    const got = await logits(path.join(root, to));
    expect(nmse(got, await logits(dir))).toBeLessThan(1e-9);
  }, 120_000);

  it("costs no more accuracy against bf16 than its own errors under random signs", async () => {
    const quantNmse = nmse(await logits(path.join(root, to)), bf16Logits);
    const quantStepNmse = nmse(await logits(path.join(root, to), STEPS), bf16Steps);
    const noiseNmse: number[] = []; // the yardstick: the same errors, random signs
    const noiseStepNmse: number[] = [];
    for (const seed of [11, 12, 13]) {
      const g = gaussian(seed);
      const noisy = base.map((t) => {
        if (!isQuantizable(t.name)) return t;
        const [rows, cols] = t.shape as [number, number];
        const q = new Uint8Array(rows * quantRowBytes(format, cols));
        quantizeRows(format, t.data, rows, cols, q);
        const dq = dequantizeRows(format, q, rows, cols);
        return { ...t, data: t.data.map((v, i) => v + (g() > 0 ? 1 : -1) * (dq[i]! - v)) };
      });
      const dir = path.join(root, `${to}-noise-${seed}`);
      writeBundle(dir, noisy, "F32");
      noiseNmse.push(nmse(await logits(dir), bf16Logits));
      noiseStepNmse.push(nmse(await logits(dir, STEPS), bf16Steps));
      rmSync(dir, { recursive: true, force: true });
    }
    const yardstick = noiseNmse.reduce((a, b) => a + b, 0) / noiseNmse.length;
    console.log(
      `${format}: last-layer logits NMSE vs bf16 ${quantNmse.toExponential(2)}; its errors under random signs ${noiseNmse.map((x) => x.toExponential(2)).join(", ")} (ratio ${(quantNmse / yardstick).toFixed(2)})`,
    );
    const stepYardstick = noiseStepNmse.reduce((a, b) => a + b, 0) / noiseStepNmse.length;
    console.log(
      `${format}: decode steps (matrix-vector${int8Decode ? ", int8 activations" : ""}): NMSE vs bf16 ${quantStepNmse.toExponential(2)}; yardstick ${noiseStepNmse.map((x) => x.toExponential(2)).join(", ")} (ratio ${(quantStepNmse / stepYardstick).toFixed(2)})`,
    );
    expect(quantNmse).toBeGreaterThan(0);
    expect(quantNmse).toBeLessThan(3 * yardstick);
    expect(quantStepNmse).toBeLessThan(3 * stepYardstick);
  }, 180_000);
});
