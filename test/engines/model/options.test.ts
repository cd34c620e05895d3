// Decode options resolved once (src/engines/model/options.ts): request + bundle defaults -> DecodeOptions, checked with
// messages naming the option. The first block runs the model engine's own entry (createModelEngine) on the default
// bundle and on a copy of it converted-style (full attention), as `ocr parse` does.
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveDecodeOptions } from "../../../dist/engines/model/options.js";
import { createModelEngine } from "../../../dist/engines/model/decode.js";
import { getEngine } from "../../../dist/engines/engine.js";
import type { RunSettings } from "../../../dist/app/settings.js";
import { defaultModelOptions, type ModelOptions } from "../../../dist/engines/settings.js";
import { validateModelJson, type ModelJson } from "../../../dist/model/schema.js";
import { repoRoot, tempDir } from "../../helpers/paths.js";

const defaultDir = path.join(repoRoot, "models/default");
const defaultJson = JSON.parse(readFileSync(path.join(defaultDir, "model.json"), "utf8")) as ModelJson;

/** The default bundle with its model.json changed: every other file linked from models/default. */
function bundleWith(dir: string, change: (json: ModelJson) => void): string {
  for (const name of readdirSync(defaultDir)) if (name !== "model.json") symlinkSync(path.join(defaultDir, name), path.join(dir, name));
  const json = structuredClone(defaultJson);
  change(json);
  writeFileSync(path.join(dir, "model.json"), JSON.stringify(json, null, 2));
  return dir;
}

function settings(model: Partial<ModelOptions> & { focal?: Partial<ModelOptions["focal"]> }): RunSettings {
  const base = defaultModelOptions();
  return {
    engine: "model",
    dpi: 150,
    maxPixels: 50_000_000,
    pages: "all",
    formats: ["json"],
    model: { ...base, ...model, focal: { ...base.focal, ...model.focal } },
  };
}

/** What createModelEngine resolved (the decoder keeps it as `options`), and its memory estimate at 150 dpi. */
async function decoderFor(s: RunSettings): Promise<{ options: unknown; bytes: number }> {
  const decoder = await createModelEngine(s);
  try {
    return { options: (decoder as unknown as { options: unknown }).options, bytes: decoder.bytesPerDocument!(150) };
  } finally {
    await decoder.close();
  }
}

describe("createModelEngine resolves the request against the bundle", () => {
  const tmp = tempDir("ocr-decode-options-");
  let converted: string;
  beforeAll(() => {
    // a converted DeepSeek-OCR bundle reads with full attention and still carries a window
    converted = bundleWith(tmp.dir, (j) => {
      j.attention = { kind: "full", window: 128 };
    });
  });
  afterAll(tmp.cleanup);

  it("--window N on a full-attention (converted) bundle reads with R-SWA over N tokens", async () => {
    const full = await decoderFor(settings({ dir: converted }));
    const windowed = await decoderFor(settings({ dir: converted, window: 64 }));
    expect(full.options).toMatchObject({ attention: { kind: "full" } });
    expect(windowed.options).toMatchObject({ attention: { kind: "rswa", window: 64 } });
    // the memory estimate follows the attention actually used: 64 text entries instead of the page's token cap
    expect(windowed.bytes).toBeLessThan(full.bytes);
  });

  it("reads a batch's documents at once only for a line-unit bundle (the default model), asked before it loads", async () => {
    const pageGrid = path.join(tmp.dir, "page-grid");
    mkdirSync(pageGrid);
    bundleWith(pageGrid, (j) => {
      delete (j.vision as { lines?: unknown }).lines;
    });
    const reads = getEngine("model")!.readsDocumentsAtOnce!;
    expect(await reads(settings({}))).toBe(true);
    expect(await reads(settings({ dir: pageGrid }))).toBe(false);
    expect(await reads(settings({ dir: path.join(tmp.dir, "no-such-bundle") }))).toBe(false);
  });

  it("--focal-layers and --focal-warmup turn focal pruning on for the default model (no focal section)", async () => {
    expect(defaultJson.attention.focal).toBeUndefined();
    const r = await decoderFor(settings({ focal: { layers: 3, warmup: 2 } }));
    expect(r.options).toMatchObject({ focal: { keep: 0.05, layers: 3, warmup: 2 } });
    const off = await decoderFor(settings({}));
    expect(off.options).toMatchObject({ focal: undefined });
  });

  it("a bundle with focal warm-up 0 is refused, naming the field", async () => {
    const dir = tempDir("ocr-decode-warmup-");
    try {
      bundleWith(dir.dir, (j) => {
        j.attention = { ...j.attention, focal: { keep: 0.1, layers: 2, warmup: 0 } };
      });
      await expect(createModelEngine(settings({ dir: dir.dir }))).rejects.toThrow(
        /attention\.focal\.warmup: expected an integer >= 1 but found 0/,
      );
    } finally {
      dir.cleanup();
    }
  });
});

describe("a bundle's word lists (vision.lines.words)", () => {
  it("a word list the bundle names and lacks stops the run before any page, naming the file", async () => {
    const dir = tempDir("ocr-decode-words-");
    try {
      bundleWith(dir.dir, (j) => {
        j.vision.lines!.words = { ru: "words-ru.bin", bg: "words-bg.bin" };
      });
      await expect(createModelEngine(settings({ dir: dir.dir }))).rejects.toThrow(
        /words-bg\.bin: no such file \(model\.json vision\.lines\.words\)/,
      );
    } finally {
      dir.cleanup();
    }
  });

  it("a word list that is no word list stops the run before any page, naming the file", async () => {
    const dir = tempDir("ocr-decode-words-bad-");
    try {
      bundleWith(dir.dir, (j) => {
        j.vision.lines!.words = { ru: "words-ru.bin", bg: "words-bg.bin" };
      });
      // (a language the default bundle has no list of: its own lists are links into models/default)
      writeFileSync(path.join(dir.dir, "words-bg.bin"), readFileSync(path.join(defaultDir, "words-ru.bin")).subarray(0, 1000));
      await expect(createModelEngine(settings({ dir: dir.dir }))).rejects.toThrow(
        /words-bg\.bin: word list header does not match its 1000 bytes/,
      );
    } finally {
      dir.cleanup();
    }
  });

  it("a word list outside the bundle folder is refused by the schema", () => {
    const json = structuredClone(defaultJson);
    json.vision.lines!.words = { ru: "../words-ru.bin" };
    expect(() => validateModelJson(json, "model.json")).toThrow(/vision\.lines\.words\.ru: expected a file name inside the bundle folder/);
  });
});

describe("resolveDecodeOptions", () => {
  const request = (model: Partial<ModelOptions> & { focal?: Partial<ModelOptions["focal"]> }) => settings(model).model;
  const full: ModelJson = { ...defaultJson, attention: { kind: "full", window: 128 } };
  const { layout: _layout, ...linesWithoutLayout } = defaultJson.vision.lines!;
  const withoutLayout: ModelJson = { ...defaultJson, vision: { ...defaultJson.vision, lines: linesWithoutLayout } };
  const withFocal: ModelJson = { ...defaultJson, attention: { kind: "rswa", window: 128, focal: { keep: 0.2, layers: 1, warmup: 4 } } };

  it("takes every default from the bundle", () => {
    expect(resolveDecodeOptions(request({}), defaultJson, "b")).toEqual({
      mode: defaultJson.vision.mode,
      documentMode: defaultJson.vision.mode,
      maxTokens: defaultJson.decoding.max_tokens_per_page,
      attention: { kind: "rswa", window: 128 },
      focal: undefined,
      threads: undefined,
      fixationsFile: undefined,
      readingOrder: "xy-cut",
    });
    expect(resolveDecodeOptions(request({}), full, "b").attention).toEqual({ kind: "full" });
    expect(resolveDecodeOptions(request({}), withFocal, "b").focal).toEqual({ keep: 0.2, layers: 1, warmup: 4 });
  });

  it("lets each option override its bundle field, and --attention full drop R-SWA", () => {
    expect(resolveDecodeOptions(request({ window: 32 }), defaultJson, "b").attention).toEqual({ kind: "rswa", window: 32 });
    expect(resolveDecodeOptions(request({ attention: "rswa" }), full, "b").attention).toEqual({ kind: "rswa", window: 128 });
    expect(resolveDecodeOptions(request({ attention: "full" }), defaultJson, "b").attention).toEqual({ kind: "full" });
    expect(resolveDecodeOptions(request({ focal: { warmup: 1 } }), withFocal, "b").focal).toEqual({ keep: 0.2, layers: 1, warmup: 1 });
    expect(resolveDecodeOptions(request({ focal: { enabled: false } }), withFocal, "b").focal).toBeUndefined();
    expect(resolveDecodeOptions(request({ maxTokens: 7, threads: 2 }), defaultJson, "b")).toMatchObject({ maxTokens: 7, threads: 2 });
    // the default bundle has a learned reading order, read with --reading-order learned; XY-cut is the default
    expect(defaultJson.vision.lines!.layout).toBe("layout.json");
    expect(resolveDecodeOptions(request({ readingOrder: "learned" }), defaultJson, "b").readingOrder).toBe("learned");
    expect(resolveDecodeOptions(request({}), withoutLayout, "b").readingOrder).toBe("xy-cut");
  });

  it.each<[string, Partial<ModelOptions> & { focal?: Partial<ModelOptions["focal"]> }, RegExp]>([
    ["window with full attention", { attention: "full", window: 8 }, /--window applies to --attention rswa, not full/],
    ["window 0", { window: 0 }, /--window must be an integer >= 1, got 0/],
    ["a fractional window", { window: 2.5 }, /--window must be an integer >= 1/],
    ["warm-up 0", { focal: { warmup: 0 } }, /--focal-warmup must be an integer >= 1, got 0/],
    ["keep above 1", { focal: { keep: 1.5 } }, /--focal-keep must be a number in \(0, 1\]/],
    ["more focal layers than the decoder has", { focal: { layers: 99 } }, /--focal-layers 99: the model has 6 decoder layers/],
    ["--no-focal with --focal-layers", { focal: { enabled: false, layers: 2 } }, /--no-focal cannot be combined/],
    ["an unknown attention", { attention: "sparse" as "full" }, /--attention must be full or rswa, got "sparse"/],
    ["max tokens 0", { maxTokens: 0 }, /--max-tokens must be an integer >= 1/],
    ["an unknown mode", { mode: "huge" }, /--mode: unknown mode "huge"/],
    ["fixations without focal pruning", { fixationsFile: "f.jsonl" }, /--fixations records what focal pruning keeps/],
    ["an unknown reading order", { readingOrder: "columns" as "xy-cut" }, /--reading-order must be xy-cut or learned, got "columns"/],
  ])("refuses %s, naming the option", (_what, model, message) => {
    expect(() => resolveDecodeOptions(request(model), defaultJson, "b")).toThrow(message);
  });

  it("refuses --reading-order learned for a bundle without a learned order", () => {
    expect(() => resolveDecodeOptions(request({ readingOrder: "learned" }), withoutLayout, "b")).toThrow(
      /--reading-order learned: b has no learned reading order/,
    );
  });
});

describe("model.json attention.focal", () => {
  const focal = (f: Record<string, number>) => ({ ...defaultJson, attention: { kind: "rswa", window: 128, focal: f } });

  it("accepts a warm-up of 1 and refuses 0 (the engine measures the focal layers during the warm-up)", () => {
    expect(() => validateModelJson(focal({ keep: 0.1, layers: 2, warmup: 1 }), "m.json")).not.toThrow();
    expect(() => validateModelJson(focal({ keep: 0.1, layers: 2, warmup: 0 }), "m.json")).toThrow(
      /attention\.focal\.warmup: expected an integer >= 1/,
    );
  });

  it("refuses more focal layers than decoder layers", () => {
    expect(() => validateModelJson(focal({ keep: 0.1, layers: 7, warmup: 2 }), "m.json")).toThrow(
      /attention\.focal\.layers: 7 exceeds decoder\.num_hidden_layers \(6\)/,
    );
  });
});
