// A missing or broken native addon must say what to run, not fail with a bare dlopen error.
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

afterEach(() => {
  delete process.env.OCR_DECODER_ADDON;
  delete process.env.OCR_BENCH_ADDON;
  vi.resetModules();
});

async function freshBinding(addon: string, bench?: string) {
  process.env.OCR_DECODER_ADDON = addon;
  if (bench) process.env.OCR_BENCH_ADDON = bench;
  vi.resetModules();
  return import("../../src/native/binding.js");
}

describe("loading the native addon", () => {
  it("names the missing file and the build command", async () => {
    const b = await freshBinding("/nonexistent/ocr_decoder.node");
    expect(() => b.loadAddon()).toThrow(/not built \(\/nonexistent\/ocr_decoder\.node is missing\).*cmake-js compile --directory native/);
  });

  it("reports a file that is not a loadable addon, with the same advice", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "ocr-addon-"));
    const bad = path.join(dir, "ocr_decoder.node");
    writeFileSync(bad, "not an ELF file");
    try {
      const b = await freshBinding(bad);
      let err: unknown;
      try {
        b.loadAddon();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(b.AddonLoadError);
      expect((err as Error).message).toMatch(/failed to load.*npm rebuild/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names a missing bench addon the same way", async () => {
    const b = await freshBinding("/nonexistent/ocr_decoder.node", "/nonexistent/ocr_bench.node");
    expect(() => b.loadBenchAddon()).toThrow(/bench addon is not built \(\/nonexistent\/ocr_bench\.node is missing\).*cmake-js compile/);
  });
});

describe("two addons: the product and the bench/test surface", () => {
  it("the product addon carries no testing surface or bandwidth probe; the bench addon does", async () => {
    vi.resetModules();
    const b = await import("../../src/native/binding.js");
    const product = b.loadAddon() as unknown as Record<string, unknown>;
    expect(Object.keys(product).sort()).toEqual(["NativeDecoder", "NativeSession", "cpuFeatures"]);
    const bench = b.loadBenchAddon();
    expect(Object.keys(bench.testing)).toContain("measureBandwidth");
    expect(Object.keys(bench.testing)).toContain("linearRows");
  });

  it("a decode through the native decoder maps only ocr_decoder.node", async () => {
    // A child process, so nothing this test file loaded is mapped: the decoder decodes on the tiny fixture, then its
    // own /proc/self/maps says which addons it holds.
    const script = `
      const { Decoder } = await import(${JSON.stringify(new URL("../../dist/native/index.js", import.meta.url).href)});
      const d = await Decoder.load(${JSON.stringify(path.resolve(import.meta.dirname, "../../fixtures/tiny-model"))}, { threads: 1 });
      const s = d.createSession({ kvDtype: "f32" });
      await s.prefill({ tokens: [0, 5, 6, 7] });
      await s.generate({ maxTokens: 2 }).result;
      const maps = (await import("node:fs")).readFileSync("/proc/self/maps", "utf8");
      console.log(JSON.stringify({ decoder: maps.includes("ocr_decoder.node"), bench: maps.includes("ocr_bench.node") }));`;
    const { execFileSync } = await import("node:child_process");
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(JSON.parse(out.trim().split("\n").pop()!)).toEqual({ decoder: true, bench: false });
  });
});
