// The embedded default model: the bundle loads, its tokenizer is the trainer's, and encoder.onnx matches PyTorch.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBundle } from "../../src/model/bundle.js";
import { Tokenizer } from "../../src/model/tokenizer.js";
import { VisionEncoder } from "../../src/vision/encoder.js";

const BUNDLE = path.resolve("models/default");
const GOLDEN = path.resolve("fixtures/model-default");

function readF32(file: string): Float32Array {
  const buf = readFileSync(file);
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}

describe("default model bundle (models/default)", () => {
  it("loads through the bundle loader with every decoder tensor present and shaped as model.json says", async () => {
    const bundle = await loadBundle(BUNDLE);
    expect(bundle.json.family).toBe("deepseek-ocr");
    expect(bundle.json.layout).toBe("streaming");
    expect(bundle.json.attention.kind).toBe("rswa");
    expect(bundle.json.attention.window).toBe(128);
    // The same family as DeepSeek-OCR: a dense first layer, then MoE layers with a shared expert.
    expect(bundle.json.decoder.first_k_dense_replace).toBe(1);
    expect(bundle.json.decoder.num_hidden_layers).toBeGreaterThan(1);
    expect(bundle.json.decoder.n_routed_experts).toBeGreaterThan(1);
    expect(bundle.json.decoder.n_shared_experts).toBe(1);
    expect(bundle.tensors.has("model.layers.1.mlp.experts.0.up_proj.weight")).toBe(true);
    expect(bundle.tensors.has("model.layers.1.mlp.shared_experts.down_proj.weight")).toBe(true);
    expect(bundle.tensors.has("model.image_newline")).toBe(true);
    // Each grid cell is one 16x16 patch of the view.
    const mode = bundle.json.vision.modes[bundle.json.vision.mode]!;
    expect(mode.grid[0] * 16).toBe(mode.size[1]);
    expect(mode.grid[1] * 16).toBe(mode.size[0]);
  });

  it("keeps the bundle within 50 MB", async () => {
    const { statSync, readdirSync } = await import("node:fs");
    const total = readdirSync(BUNDLE).reduce((sum, f) => sum + statSync(path.join(BUNDLE, f)).size, 0);
    expect(total).toBeLessThanOrEqual(50 * 1024 * 1024);
  });

  it("has a character tokenizer that the JS library reads as the trainer wrote it", async () => {
    const bundle = await loadBundle(BUNDLE);
    const tok = await Tokenizer.load(bundle.tokenizerPath);
    const json = JSON.parse(readFileSync(bundle.tokenizerPath, "utf8")) as { model: { vocab: Record<string, number> } };
    const vocab = json.model.vocab;
    const text = "Größe: <table><tr><td>Привет</td></tr></table> é";
    const ids = tok.encode(text);
    const expected = ["G", "r", "ö", "ß", "e", ":", " ", "<table>", "<tr>", "<td>", "П", "р", "и", "в", "е", "т", "</td>", "</tr>", "</table>", " ", "é"].map((t) => vocab[t]);
    expect(ids).toEqual(expected);
    expect(tok.decode(ids)).toBe(text);
    const tokens = bundle.json.tokens;
    expect(vocab["<PAGE>"]).toBe(tokens.page);
  });

  describe("encoder.onnx in onnxruntime-node", () => {
    let encoder: VisionEncoder;
    beforeAll(async () => {
      encoder = await VisionEncoder.open(path.join(BUNDLE, "encoder.onnx"), { device: "cpu", threads: 1 });
    });
    afterAll(async () => encoder?.close());

    it("matches the PyTorch encoder on the stored golden views (any view size: one graph)", async () => {
      const meta = JSON.parse(readFileSync(path.join(GOLDEN, "encoder-golden.json"), "utf8")) as { pixels: number[]; embeddings: number[] };
      const pixels = readF32(path.join(GOLDEN, "encoder-pixels.f32"));
      const ref = readF32(path.join(GOLDEN, "encoder-embeddings.f32"));
      const out = await encoder.encode(pixels, meta.pixels as [number, number, number, number]);
      expect(out.dims).toEqual(meta.embeddings);
      let maxAbs = 0;
      let maxRef = 0;
      for (let i = 0; i < ref.length; i++) {
        maxAbs = Math.max(maxAbs, Math.abs(out.data[i]! - ref[i]!));
        maxRef = Math.max(maxRef, Math.abs(ref[i]!));
      }
      expect(maxRef).toBeGreaterThan(0.01);
      // float32 graph vs float32 eager: only summation order and the exported erf-GELU differ
      expect(maxAbs / maxRef).toBeLessThan(1e-4);
    });

    it("turns a page-mode view into the grid model.json declares", async () => {
      const bundle = await loadBundle(BUNDLE);
      const mode = bundle.json.vision.modes[bundle.json.vision.mode]!;
      const [w, h] = mode.size;
      const out = await encoder.encode(new Float32Array(3 * w * h).fill(1), [1, 3, h, w]);
      expect(out.dims).toEqual([1, mode.grid[0], mode.grid[1], bundle.json.decoder.hidden_size]);
    });
  });
});
