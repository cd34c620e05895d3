// How the model engine plans its passes for the DeepSeek-OCR family: Gundam for a page alone (Unlimited-OCR: up
// to 32 tiles, as its reference's dynamic_preprocess), untiled Base inside multi-page passes, and the `--jobs`
// memory estimate under R-SWA's constant cache.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveDecodeOptions } from "../../../src/engines/model/options.js";
import { documentPass } from "../../../src/engines/model/document-pass.js";
import { bytesPerDocument, bytesPerEntry, cacheEntries, cacheSlots, LANE_BYTES, viewEntries } from "../../../src/engines/model/memory.js";
import { defaultModelOptions } from "../../../src/engines/settings.js";
import { Decoder } from "../../../src/native/index.js";
import { modelJsonFromCheckpointConfig, REFERENCE_DPI } from "../../../src/model/checkpoint-config.js";
import type { DecoderConfig, ModelJson } from "../../../src/model/schema.js";
import { validateModelJson } from "../../../src/model/schema.js";
import { preparePage } from "../../../src/vision/preprocess.js";
import { loadGolden } from "../../native/helpers.js";

/** config.json of the released checkpoints (decoder numbers; Unlimited-OCR adds its sliding window). */
const CONFIG = {
  hidden_size: 1280,
  num_hidden_layers: 12,
  num_attention_heads: 10,
  num_key_value_heads: 10,
  intermediate_size: 6848,
  moe_intermediate_size: 896,
  n_routed_experts: 64,
  num_experts_per_tok: 6,
  n_shared_experts: 2,
  first_k_dense_replace: 1,
  vocab_size: 129280,
  max_position_embeddings: 8192,
  bos_token_id: 0,
  eos_token_id: 1,
};
const unlimited = modelJsonFromCheckpointConfig(
  { ...CONFIG, sliding_window_size: 128 },
  { name: "unlimited", weights: ["model.safetensors"] },
);
const deepseek = modelJsonFromCheckpointConfig(CONFIG, { name: "deepseek", weights: ["model.safetensors"] });

/** An A4 page rendered at `dpi` (white, one dark block so it is not blank). */
function a4(dpi: number) {
  const width = Math.round((210 / 25.4) * dpi);
  const height = Math.round((297 / 25.4) * dpi);
  const data = Buffer.alloc(width * height * 3, 255);
  for (let y = 200; y < 260; y++) data.fill(0, (y * width + 100) * 3, (y * width + width - 100) * 3);
  return { width, height, data };
}

describe("Gundam for a page alone, never inside a multi-page pass", () => {
  it("Unlimited-OCR's bundle reads a page alone in Gundam with up to 32 tiles, and multi-page passes in Base", () => {
    expect(validateModelJson(JSON.parse(JSON.stringify(unlimited)), "model.json")).toEqual(unlimited);
    const o = resolveDecodeOptions(defaultModelOptions(), unlimited, "/bundle");
    expect(o.mode).toBe("gundam");
    expect(unlimited.vision.modes.gundam!.tiles).toMatchObject({ min_tiles: 2, max_tiles: 32 });
    expect(o.documentMode).toBe("base");
    // DeepSeek-OCR keeps its reference's 2 to 9 tiles
    expect(deepseek.vision.modes.gundam!.tiles).toMatchObject({ min_tiles: 2, max_tiles: 9 });
    // asking for Gundam does not tile a multi-page pass; an untiled mode asked for is used there too
    expect(resolveDecodeOptions({ ...defaultModelOptions(), mode: "gundam" }, unlimited, "/bundle").documentMode).toBe("base");
    expect(resolveDecodeOptions({ ...defaultModelOptions(), mode: "large" }, unlimited, "/bundle")).toMatchObject({
      mode: "large",
      documentMode: "large",
    });
  });

  it(`the tile plan of an A4 page at the reference's ${REFERENCE_DPI} DPI: 2 × 3 tiles of 640, 903 visual entries`, async () => {
    const page = a4(REFERENCE_DPI);
    expect([page.width, page.height]).toEqual([1191, 1684]);
    const alone = await preparePage(page, unlimited.vision, resolveDecodeOptions(defaultModelOptions(), unlimited, "/b").mode);
    expect(alone.mode).toBe("gundam");
    expect(alone.tiles).toMatchObject({ count: 6, width: 640, height: 640, cols: 2, rows: 3 });
    expect(alone.sequence.tiles).toMatchObject({ tileCols: 2, tileRows: 3 });
    // 16 × 17 global + separator, then (2·10 + 1) × (3·10) tile entries
    expect(alone.visualTokens).toBe(273 + 21 * 30);
    const inPass = await preparePage(page, unlimited.vision, resolveDecodeOptions(defaultModelOptions(), unlimited, "/b").documentMode);
    expect(inPass.tiles).toBeUndefined();
    expect(inPass.visualTokens).toBe(273);
  });

  it("a bundle whose document_mode cuts tiles is refused by name", () => {
    const bad = { ...unlimited, vision: { ...unlimited.vision, document_mode: "gundam" } };
    expect(() => validateModelJson(bad, "/b/model.json")).toThrow(/\/b\/model\.json.*vision\.document_mode.*cuts tiles/);
  });
});

describe("--jobs memory estimate under R-SWA", () => {
  const o = resolveDecodeOptions(defaultModelOptions(), unlimited, "/bundle");

  it("is constant in the document's length and the token cap: one page of entries, the prompt, the window", () => {
    const entries = cacheEntries(unlimited, o);
    expect(entries).toBe(64 + viewEntries(unlimited.vision.modes.gundam!) + 128);
    expect(cacheEntries(unlimited, { ...o, maxTokens: 100_000 })).toBe(entries);
    expect(bytesPerDocument(unlimited, { ...o, maxTokens: 100_000 }, 150)).toBe(bytesPerDocument(unlimited, o, 150));
    // 12 layers × K and V × 10 heads × 128 dims × 4 bytes
    expect(bytesPerEntry(unlimited)).toBe(12 * 2 * 10 * 128 * 4);
    // full attention keeps every generated entry of a (one-page) pass
    const full = resolveDecodeOptions({ ...defaultModelOptions(), attention: "full" }, unlimited, "/bundle");
    expect(cacheEntries(unlimited, full)).toBe(64 + viewEntries(unlimited.vision.modes.gundam!) + 8192);
  });

  it("counts a line-unit model's own lane of vision sessions per document", () => {
    const page = bytesPerDocument(unlimited, o, 150);
    expect(bytesPerDocument(unlimited, { ...o, lineUnit: true }, 150) - page).toBeGreaterThanOrEqual(LANE_BYTES);
    expect(LANE_BYTES).toBe(200 * 2 ** 20);
  });

  it("bounds the cache a real whole-document pass allocates (tiny random-weight decoder, 12 pages)", async () => {
    const g = loadGolden("tiny-model");
    const config = JSON.parse(readFileSync(path.join(g.dir, "model.json"), "utf8")).decoder as DecoderConfig;
    const json: ModelJson = { ...unlimited, decoder: config };
    const window = 128;
    const options = { ...o, documentMode: "base", mode: "base", maxTokens: 200, attention: { kind: "rswa" as const, window } };
    const decoder = await Decoder.load(g.dir, { threads: 2 });
    const session = decoder.createSession({ attention: options.attention });
    const hidden = config.hidden_size;
    const rows = viewEntries(json.vision.modes.base!);
    const views = async (i: number) => new Float32Array(rows * hidden).map((_, k) => Math.sin(k * 0.37 + i) * 0.2);
    const text = { decode: (ids: number[]) => ids.map((i) => String.fromCharCode(0x4e00 + i)).join(""), encode: () => [4] };
    let most = 0;
    for await (const p of documentPass(
      session,
      12,
      views,
      { prompt: { ids: [0, 40, 41, 42], visualStart: 1 }, text, marker: "<PAGE>", eos: 1, maxTokens: 200 },
      hidden,
    ))
      most = Math.max(most, p.cache.bytes);
    session.dispose();
    const estimate = cacheSlots(cacheEntries(json, options)) * bytesPerEntry(json);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(estimate);
    // and not by much: the same doubling step
    expect(estimate).toBeLessThanOrEqual(2 * most);
  }, 300_000);
});
