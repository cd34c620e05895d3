// A missing or broken native addon must say what to run, not fail with a bare dlopen error.
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

afterEach(() => {
  delete process.env.OCR_ENGINE_ADDON;
  vi.resetModules();
});

async function freshBinding(addon: string) {
  process.env.OCR_ENGINE_ADDON = addon;
  vi.resetModules();
  return import("../../src/engine/binding.js");
}

describe("loading the native addon", () => {
  it("names the missing file and the build command", async () => {
    const b = await freshBinding("/nonexistent/ocr_engine.node");
    expect(() => b.loadAddon()).toThrow(/not built \(\/nonexistent\/ocr_engine\.node is missing\).*cmake-js compile --directory native/);
  });

  it("reports a file that is not a loadable addon, with the same advice", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "ocr-addon-"));
    const bad = path.join(dir, "ocr_engine.node");
    writeFileSync(bad, "not an ELF file");
    try {
      const b = await freshBinding(bad);
      let err: unknown;
      try {
        b.loadAddon();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(b.EngineLoadError);
      expect((err as Error).message).toMatch(/failed to load.*npm rebuild/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
