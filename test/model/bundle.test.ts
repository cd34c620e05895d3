// Bundle loading: model.json validation and safetensors header checks on small generated bundles.
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectedDecoderTensors, loadBundle } from "../../src/model/bundle.js";
import { modelJsonFromCheckpointConfig } from "../../src/model/checkpoint-config.js";
import { readSafetensorsHeader } from "../../src/model/safetensors.js";
import type { ModelJson } from "../../src/model/schema.js";
import { deepseekOcrConfig } from "./helpers.js";

/** Writes a safetensors file whose tensors are zero-filled; `tamper` may edit the header first. */
export async function writeSafetensors(
  file: string,
  tensors: Map<string, number[]>,
  tamper?: (h: Record<string, any>) => void,
  truncateBy = 0,
): Promise<void> {
  const header: Record<string, any> = { __metadata__: { format: "pt" } };
  let offset = 0;
  for (const [name, shape] of tensors) {
    const n = shape.reduce((a, b) => a * b, 1) * 2;
    header[name] = { dtype: "BF16", shape, data_offsets: [offset, offset + n] };
    offset += n;
  }
  tamper?.(header);
  let json = Buffer.from(JSON.stringify(header));
  json = Buffer.concat([json, Buffer.alloc((8 - (json.length % 8)) % 8, 0x20)]);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  await writeFile(file, Buffer.concat([len, json, Buffer.alloc(Math.max(0, offset - truncateBy))]));
}

function tinyModelJson(): ModelJson {
  const cfg = deepseekOcrConfig({
    hidden_size: 16,
    intermediate_size: 24,
    moe_intermediate_size: 8,
    n_routed_experts: 4,
    n_shared_experts: 2,
    num_attention_heads: 2,
    num_key_value_heads: 2,
    num_experts_per_tok: 2,
    num_hidden_layers: 2,
    vocab_size: 129280,
  });
  return modelJsonFromCheckpointConfig(cfg, { name: "tiny", weights: ["model.safetensors"] });
}

async function makeBundle(edit?: (m: ModelJson) => void, tamper?: (h: Record<string, any>) => void, truncateBy = 0): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "bundle-"));
  const m = tinyModelJson();
  const tensors = expectedDecoderTensors(m.decoder, { rowNewline: true, viewSeparator: true });
  tensors.set("model.sam_model.pos_embed", [1, 2, 2, 4]); // encoder tensors of a real checkpoint are tolerated
  await writeSafetensors(path.join(dir, "model.safetensors"), tensors, tamper, truncateBy);
  edit?.(m);
  await writeFile(path.join(dir, "model.json"), JSON.stringify(m));
  await writeFile(path.join(dir, "encoder.onnx"), "x");
  await writeFile(path.join(dir, "tokenizer.json"), "{}");
  return dir;
}

describe("bundle loader", () => {
  it("loads a consistent bundle and counts decoder parameters", async () => {
    const dir = await makeBundle();
    const b = await loadBundle(dir);
    expect(b.json.family).toBe("deepseek-ocr");
    expect(b.json.decoder.head_dim).toBe(8);
    expect(b.tensors.get("model.layers.1.mlp.experts.3.down_proj.weight")!.shape).toEqual([16, 8]);
    expect(b.tensors.get("model.layers.1.mlp.shared_experts.up_proj.weight")!.shape).toEqual([16, 16]);
    const expected = expectedDecoderTensors(b.json.decoder, { rowNewline: true, viewSeparator: true });
    expect(b.decoderParameters).toBe([...expected.values()].reduce((s, sh) => s + sh.reduce((a, c) => a * c, 1), 0));
  });

  it("counts the full-size DeepSeek-OCR decoder at about 2.93B parameters", () => {
    const m = modelJsonFromCheckpointConfig(deepseekOcrConfig(), { name: "x", weights: ["w.safetensors"] });
    const t = expectedDecoderTensors(m.decoder, { rowNewline: true, viewSeparator: true });
    const n = [...t.values()].reduce((s, sh) => s + sh.reduce((a, c) => a * c, 1), 0);
    // embed + lm_head 2·129280·1280, attention 12·4·1280², norms, dense layer 0 3·6848·1280,
    // 11 MoE layers of (64·3·896·1280 + 3·1792·1280 + 64·1280), final norm, newline and separator
    const attn = 12 * (4 * 1280 * 1280 + 2 * 1280);
    const moe = 11 * (64 * 3 * 896 * 1280 + 3 * 1792 * 1280 + 64 * 1280);
    expect(n).toBe(2 * 129280 * 1280 + attn + 3 * 6848 * 1280 + moe + 3 * 1280);
    expect(n).toBe(2_934_736_640);
    expect(t.get("model.layers.0.mlp.gate_proj.weight")).toEqual([6848, 1280]);
    expect(t.get("model.layers.11.mlp.shared_experts.down_proj.weight")).toEqual([1280, 1792]);
    expect(t.get("model.layers.5.mlp.gate.weight")).toEqual([64, 1280]);
  });

  it("names the file and field of an invalid model.json", async () => {
    const dir = await makeBundle((m) => {
      (m.vision as any).mode = "huge";
      (m.decoder as any).rms_norm_eps = -1;
      (m.tokens as any).image = 999999;
    });
    const err = await loadBundle(dir).catch((e) => e as Error);
    expect(err.message).toContain(path.join(dir, "model.json"));
    expect(err.message).toMatch(/vision\.mode: names no mode/);
    expect(err.message).toMatch(/decoder\.rms_norm_eps/);
    expect(err.message).toMatch(/tokens\.image: id 999999 is outside the vocabulary/);
  });

  it("rejects weights escaping the bundle folder", async () => {
    const dir = await makeBundle((m) => (m.decoder.weights = ["../other.safetensors"]));
    await expect(loadBundle(dir)).rejects.toThrow(/inside the bundle folder/);
  });

  it("reports a missing tensor, a wrong shape, a truncated file and overlapping tensors", async () => {
    const missing = await makeBundle(undefined, (h) => delete h["model.layers.1.mlp.gate.weight"]);
    await expect(loadBundle(missing)).rejects.toThrow(/model\.layers\.1\.mlp\.gate\.weight is missing/);
    const shape = await makeBundle(undefined, (h) => {
      h["model.norm.weight"].shape = [8, 2];
    });
    await expect(loadBundle(shape)).rejects.toThrow(/model\.norm\.weight has shape \[8,2\], model\.json implies \[16\]/);
    const truncated = await makeBundle(undefined, undefined, 10);
    await expect(loadBundle(truncated)).rejects.toThrow(/runs past the end of the file/);
    const overlap = await makeBundle(undefined, (h) => {
      const a = h["model.norm.weight"].data_offsets;
      h["model.image_newline"].data_offsets = [a[0], a[1]];
    });
    await expect(loadBundle(overlap)).rejects.toThrow(/overlap/);
  });

  it("rejects a header whose length points past the file", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "st-"));
    const f = path.join(dir, "bad.safetensors");
    const b = Buffer.alloc(16);
    b.writeBigUInt64LE(1000n);
    await writeFile(f, b);
    await expect(readSafetensorsHeader(f)).rejects.toThrow(/bad safetensors header length 1000/);
  });

  it("says a folder without model.json is not a bundle", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "empty-"));
    await expect(loadBundle(dir)).rejects.toThrow(/not a model bundle/);
  });
});
