// Decoder.fromBundle: the decoder of a bundle that src/model read and validated once is built from that validated
// model.json, without reading or checking it again (Decoder.load is the standalone path that reads it itself).
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Decoder } from "../../src/native/index.js";
import { validateModelJson } from "../../src/model/schema.js";
import { loadGolden, prefixInput } from "./helpers.js";

const g = loadGolden("tiny-model");
const json = JSON.parse(readFileSync(path.join(g.dir, "model.json"), "utf8"));
const dir = mkdtempSync(path.join(tmpdir(), "ocr-from-bundle-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Decoder.fromBundle", () => {
  it("builds the decoder from the validated model.json it is given, reading no model.json", async () => {
    // a folder with the weights and no model.json: Decoder.load cannot read it, fromBundle never tries
    symlinkSync(path.join(g.dir, "model.safetensors"), path.join(dir, "model.safetensors"));
    await expect(Decoder.load(dir)).rejects.toThrow(/model\.json/);
    const fromBundle = Decoder.fromBundle({ dir, json: { decoder: json.decoder } }, { threads: 1 });
    const loaded = await Decoder.load(g.dir, { threads: 1 });
    const a = await fromBundle.createSession().prefill(prefixInput(g));
    const b = await loaded.createSession().prefill(prefixInput(g));
    expect(Array.from(a.logits)).toEqual(Array.from(b.logits));
  });

  it("leaves the checks to the one validator: model/schema.ts refuses what the native decoder cannot run, by name", () => {
    const bad = { ...json, decoder: { ...json.decoder, head_dim: 15 }, vision: undefined };
    expect(() => validateModelJson(bad, "/b/model.json")).toThrow(/\/b\/model\.json.*decoder\.head_dim.*even/);
    const experts = { ...json, decoder: { ...json.decoder, num_experts_per_tok: 0 } };
    expect(() => validateModelJson(experts, "/b/model.json")).toThrow(/decoder\.num_experts_per_tok/);
  });
});
