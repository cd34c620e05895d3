// The exported DeepEncoder (reduced widths, same code as full size) in onnxruntime-node against PyTorch's outputs.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cudaProviderInstalled, OnnxThread, VisionEncoder } from "../../src/vision/encoder.js";

const FIXTURE = path.resolve("fixtures/deepencoder-tiny");

/** Same formula as export_onnx.py's test_pixels: ((i·7919) mod 2001)/1000 − 1. */
function testPixels(n: number, size: number): Float32Array {
  const out = new Float32Array(n * 3 * size * size);
  for (let i = 0; i < out.length; i++) out[i] = Math.fround(((i * 7919) % 2001) / 1000) - 1;
  return out;
}

describe("vision encoder (onnxruntime-node, worker thread)", () => {
  let encoder: VisionEncoder;
  beforeAll(async () => {
    encoder = await VisionEncoder.open(path.join(FIXTURE, "encoder.onnx"), { device: "cpu", threads: 1 });
  });
  afterAll(async () => encoder?.close());

  const manifest = JSON.parse(readFileSync(path.join(FIXTURE, "manifest.json"), "utf8")) as {
    cases: { views: number; size: number; file: string; dims: number[] }[];
  };
  for (const c of manifest.cases) {
    it(`matches PyTorch for ${c.views} view(s) of ${c.size}×${c.size} (one graph, every view size)`, async () => {
      const out = await encoder.encode(testPixels(c.views, c.size), [c.views, 3, c.size, c.size]);
      expect(out.dims).toEqual(c.dims);
      const buf = readFileSync(path.join(FIXTURE, c.file));
      const ref = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
      let maxAbs = 0;
      let maxRef = 0;
      for (let i = 0; i < ref.length; i++) {
        maxAbs = Math.max(maxAbs, Math.abs(out.data[i]! - ref[i]!));
        maxRef = Math.max(maxRef, Math.abs(ref[i]!));
      }
      expect(maxRef).toBeGreaterThan(0.01);
      // float32 graph vs float32 eager: only summation order differs
      expect(maxAbs / maxRef).toBeLessThan(1e-4);
    });
  }

  it("runs on the CPU provider when asked", () => {
    expect(encoder.provider).toBe("cpu");
  });

  it("opens with device auto, falling back to the CPU without a CUDA provider", async () => {
    const auto = await VisionEncoder.open(path.join(FIXTURE, "encoder.onnx"), { device: "auto", threads: 1 });
    try {
      if (!cudaProviderInstalled()) expect(auto.provider).toBe("cpu");
      const out = await auto.encode(testPixels(1, 512), [1, 3, 512, 512]);
      expect(out.dims).toEqual([1, 8, 8, 24]);
    } finally {
      await auto.close();
    }
  });

  it("rejects pixels that do not match their dims, naming the encoder file", async () => {
    await expect(encoder.encode(new Float32Array(10), [1, 3, 64, 64])).rejects.toThrow(/encoder\.onnx: pixels hold 10 values/);
  });

  it("reports a file that is not an ONNX model", async () => {
    await expect(VisionEncoder.open(path.join(FIXTURE, "manifest.json"), { device: "cpu" })).rejects.toThrow(/manifest\.json/);
  });

  it("holds several sessions on one shared thread, which ends with the last of them", async () => {
    const thread = new OnnxThread({ device: "cpu", threads: 1 });
    const a = await VisionEncoder.open(path.join(FIXTURE, "encoder.onnx"), { device: "cpu", threads: 1 }, undefined, thread);
    const b = await VisionEncoder.open(path.join(FIXTURE, "encoder.onnx"), { device: "cpu", threads: 1 }, undefined, thread);
    const exited = new Promise((resolve) => thread.worker.once("exit", resolve));
    // a session that fails to open leaves the others working
    await expect(VisionEncoder.open(path.join(FIXTURE, "manifest.json"), { device: "cpu" }, undefined, thread)).rejects.toThrow(
      /manifest\.json/,
    );
    const [x, y] = await Promise.all([a.encode(testPixels(1, 512), [1, 3, 512, 512]), b.encode(testPixels(1, 512), [1, 3, 512, 512])]);
    expect(Array.from(x.data)).toEqual(Array.from(y.data));
    await a.close();
    await expect(a.encode(testPixels(1, 512), [1, 3, 512, 512])).rejects.toThrow(/closed/);
    expect((await b.encode(testPixels(1, 512), [1, 3, 512, 512])).dims).toEqual([1, 8, 8, 24]);
    await b.close();
    await exited;
  });
});
