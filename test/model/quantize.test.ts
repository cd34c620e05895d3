// Block quantisation (src/model/quantize.ts) and `ocr models quantize`: half conversion, the per-weight error bound
// of each format, and the command on the default bundle, with its errors.
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadBundle } from "../../src/model/bundle.js";
import { dequantizeRows, f16ToF32, f32ToF16, quantizeRows, quantRowBytes } from "../../src/model/quantize.js";
import { ocr } from "../helpers/cli.js";
import { repoRoot } from "../helpers/paths.js";

describe("f32ToF16", () => {
  it("maps every finite half to itself and rounds midpoints to the even neighbour", () => {
    for (let h = 0; h < 0x7c00; h++) {
      expect(f32ToF16(f16ToF32(h))).toBe(h);
      expect(f32ToF16(-f16ToF32(h))).toBe(h === 0 ? 0x8000 : h | 0x8000);
      if (h + 1 < 0x7c00) {
        const mid = (f16ToF32(h) + f16ToF32(h + 1)) / 2; // exact in f32 (one more bit than a half has)
        expect(f32ToF16(mid)).toBe(h & 1 ? h + 1 : h);
      }
    }
    expect(f32ToF16(70000)).toBe(0x7c00); // past the largest half: infinity
    expect(f32ToF16(1e-9)).toBe(0); // below half the smallest subnormal
  });
});

describe("quantizeRows", () => {
  const rows = 8;
  const cols = 96;
  const r = (() => {
    let s = 99;
    return () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32 - 0.5) * 2;
  })();
  const w = Float32Array.from({ length: rows * cols }, (_, i) => r() * (1 + (i % 7)) + (i % 96 < 32 ? 3 : 0));

  it("q8_0: every weight within half a step (d = max|w| / 127, d rounded to f16) of its block", () => {
    const q = new Uint8Array(rows * quantRowBytes("q8_0", cols));
    quantizeRows("q8_0", w, rows, cols, q);
    const dq = dequantizeRows("q8_0", q, rows, cols);
    for (let b = 0; b < (rows * cols) / 32; b++) {
      const block = w.subarray(b * 32, b * 32 + 32);
      const d = Math.max(...block.map(Math.abs)) / 127;
      for (let j = 0; j < 32; j++) expect(Math.abs(dq[b * 32 + j]! - block[j]!)).toBeLessThanOrEqual(d * (0.5 + 2 ** -10 * 128));
    }
  });

  it("q4_1: every weight within half a step (d = (max - min) / 15) of its block, the minimum stored", () => {
    const q = new Uint8Array(rows * quantRowBytes("q4_1", cols));
    quantizeRows("q4_1", w, rows, cols, q);
    const dq = dequantizeRows("q4_1", q, rows, cols);
    for (let b = 0; b < (rows * cols) / 32; b++) {
      const block = w.subarray(b * 32, b * 32 + 32);
      const lo = Math.min(...block);
      const d = (Math.max(...block) - lo) / 15;
      for (let j = 0; j < 32; j++)
        expect(Math.abs(dq[b * 32 + j]! - block[j]!)).toBeLessThanOrEqual(d * (0.5 + 2 ** -10 * 16) + Math.abs(lo) * 2 ** -11);
    }
  });

  it("refuses rows that are not whole blocks", () => {
    expect(() => quantizeRows("q8_0", new Float32Array(40), 1, 40, new Uint8Array(68))).toThrow(/not a multiple of 32/);
  });
});

describe("ocr models quantize", () => {
  const root = mkdtempSync(path.join(tmpdir(), "ocr-quantize-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const bundle = path.join(repoRoot, "models/default");

  it.each(["q8", "q4"])("--to %s writes a bundle whose decoder matrices are quantised and everything else kept", async (to) => {
    const out = path.join(root, to);
    const r = await ocr(["models", "quantize", bundle, "--to", to, "--out", out]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(out);
    const json = JSON.parse(readFileSync(path.join(out, "model.json"), "utf8"));
    const format = to === "q8" ? "q8_0" : "q4_1";
    expect(json.decoder.quantization).toBe(format);
    expect(json.decoder.weights).toEqual(["model.safetensors"]);
    for (const f of ["encoder.onnx", "tokenizer.json", "detector.onnx"])
      expect(lstatSync(path.join(out, f)).isSymbolicLink(), f).toBe(true);
    const b = await loadBundle(out);
    const kinds = new Map<string, string>();
    for (const t of b.tensors.values()) kinds.set(t.name, t.quant ?? t.dtype);
    expect(kinds.get("model.layers.0.self_attn.q_proj.weight")).toBe(format);
    expect(kinds.get("model.layers.1.mlp.experts.0.down_proj.weight")).toBe(format);
    expect(kinds.get("model.layers.1.mlp.shared_experts.up_proj.weight")).toBe(format);
    expect(kinds.get("lm_head.weight")).toBe(format);
    for (const kept of [
      "model.embed_tokens.weight",
      "model.layers.1.mlp.gate.weight",
      "model.layers.0.input_layernorm.weight",
      "model.norm.weight",
    ])
      expect(kinds.get(kept), kept).not.toMatch(/^q/);
    const info = await ocr(["models", "info", out, "--json"]);
    expect(JSON.parse(info.stdout).decoder.dtypes).toContain(format);
  });

  it("says what is wrong with its input", async () => {
    const bad = await ocr(["models", "quantize", bundle, "--to", "q5", "--out", path.join(root, "x")]);
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toMatch(/--to must be q8 or q4, not q5/);
    const missing = await ocr(["models", "quantize", path.join(root, "nowhere"), "--out", path.join(root, "y")]);
    expect(missing.stderr).toMatch(/nowhere: no such folder/);
    const again = await ocr(["models", "quantize", path.join(root, "q8"), "--out", path.join(root, "z")]);
    expect(again.stderr).toMatch(/model\.json.*already quantised \(q8_0\)/);
    const taken = await ocr(["models", "quantize", bundle, "--out", path.join(root, "q4")]);
    expect(taken.stderr).toMatch(/q4\/model\.json.*already exists/);
    const broken = path.join(root, "broken");
    rmSync(broken, { recursive: true, force: true });
    await import("node:fs").then((fs) => fs.mkdirSync(broken));
    writeFileSync(path.join(broken, "model.json"), "{ not json");
    const unreadable = await ocr(["models", "quantize", broken, "--out", path.join(root, "w")]);
    expect(unreadable.stderr).toMatch(/broken\/model\.json.*cannot read the bundle description/);
    expect(existsSync(path.join(root, "w", "model.safetensors"))).toBe(false);
  });
});
