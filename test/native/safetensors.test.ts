// Untrusted weight files: every broken header must give a clear BAD_WEIGHTS error naming the file.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Decoder, DecoderError } from "../../src/native/index.js";
import { fixturesDir } from "./helpers.js";

const src = path.join(fixturesDir, "tiny-model");
const work = mkdtempSync(path.join(tmpdir(), "ocr-st-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const original = readFileSync(path.join(src, "model.safetensors"));
const headerLen = Number(original.readBigUInt64LE(0));
const header = JSON.parse(original.subarray(8, 8 + headerLen).toString("utf8")) as Record<string, any>;
const data = original.subarray(8 + headerLen);

function bundleWith(name: string, bytes: Buffer): string {
  const dir = path.join(work, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  copyFileSync(path.join(src, "model.json"), path.join(dir, "model.json"));
  writeFileSync(path.join(dir, "model.safetensors"), bytes);
  return dir;
}

function encode(h: unknown, body: Buffer, lengthOverride?: bigint): Buffer {
  const json = Buffer.from(JSON.stringify(h), "utf8");
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(lengthOverride ?? BigInt(json.length));
  return Buffer.concat([len, json, body]);
}

async function loadError(dir: string): Promise<DecoderError> {
  try {
    await Decoder.load(dir, { threads: 1 });
  } catch (err) {
    return err as DecoderError;
  }
  throw new Error("expected the load to fail");
}

const clone = () => JSON.parse(JSON.stringify(header)) as Record<string, any>;

describe("safetensors header validation", () => {
  const cases: [string, () => Buffer, RegExp][] = [
    ["a file shorter than the length prefix", () => Buffer.from([1, 2, 3]), /too short/],
    ["a header length past the end of the file", () => encode(header, data, BigInt(original.length)), /runs past the end/],
    ["a header length over the 100 MB limit", () => encode(header, data, 1n << 40n), /exceeds the 100 MB limit/],
    [
      "a header that is not JSON",
      () => Buffer.concat([original.subarray(0, 8), Buffer.from("{not json".padEnd(headerLen, " ")), data]),
      /not valid JSON/,
    ],
    ["a truncated data section", () => original.subarray(0, original.length - 100), /past the data section/],
    [
      "a size that does not match shape x dtype",
      () => {
        const h = clone();
        h["model.norm.weight"].shape = [65];
        return encode(h, data);
      },
      /model\.norm\.weight.*bytes for shape \[65\]/,
    ],
    [
      "a negative dimension",
      () => {
        const h = clone();
        h["model.norm.weight"].shape = [-64];
        return encode(h, data);
      },
      /non-integer or negative/,
    ],
    [
      "begin after end",
      () => {
        const h = clone();
        const [b, e] = h["model.norm.weight"].data_offsets;
        h["model.norm.weight"].data_offsets = [e, b];
        return encode(h, data);
      },
      /begin > end/,
    ],
    [
      "overlapping tensors",
      () => {
        const h = clone();
        h["model.norm.weight"].data_offsets = h["model.layers.0.input_layernorm.weight"].data_offsets;
        return encode(h, data);
      },
      /overlap/,
    ],
    [
      "a missing tensor",
      () => {
        const h = clone();
        delete h["lm_head.weight"];
        return encode(h, data);
      },
      /'lm_head\.weight' is missing/,
    ],
    [
      "a shape that disagrees with the config",
      () => {
        const h = clone();
        const t = h["model.layers.1.mlp.gate.weight"];
        t.shape = [t.shape[1], t.shape[0]];
        return encode(h, data);
      },
      /model\.layers\.1\.mlp\.gate\.weight' has shape \[64,8\], expected \[8,64\]/,
    ],
  ];
  for (const [what, make, message] of cases) {
    it(`rejects ${what}`, async () => {
      const dir = bundleWith(what.replace(/\W+/g, "-"), make());
      const err = await loadError(dir);
      expect(err).toBeInstanceOf(DecoderError);
      expect(err.code).toBe("BAD_WEIGHTS");
      expect(err.message).toMatch(message);
      if (!/is missing/.test(err.message)) expect(err.message).toContain(path.join(dir, "model.safetensors"));
    });
  }

  it("loads the untouched copy (the cases above fail for their own reason)", async () => {
    const decoder = await Decoder.load(bundleWith("ok", original), { threads: 1 });
    expect(decoder.info.weightDtype).toBe("f32");
  });

  it("a missing weights file names it", async () => {
    const dir = bundleWith("nofile", original);
    rmSync(path.join(dir, "model.safetensors"));
    const err = await loadError(dir);
    expect(err.code).toBe("BAD_WEIGHTS");
    expect(err.message).toContain("cannot open");
  });
});

describe("decoder options and inputs are validated in TypeScript", () => {
  it("names the option and the value", async () => {
    await expect(Decoder.load(src, { threads: 0 })).rejects.toThrow(/Expected an integer >= 1 for option threads but received 0/);
    const decoder = await Decoder.load(src, { threads: 1 });
    expect(() => decoder.createSession({ kvDtype: "f8" as never })).toThrow(/option kvDtype but received "f8"/);
    expect(() => decoder.createSession({ attention: { kind: "rswa", window: 0 } })).toThrow(/attention\.window/);
    const s = decoder.createSession();
    await expect(s.prefill({ tokens: [1, -3] })).rejects.toThrow(/tokens\[1\]/);
    await expect(s.prefill({ tokens: [100000] })).rejects.toMatchObject({ code: "BAD_INPUT" });
    await expect(s.prefill({ tokens: [1], embeddings: new Float32Array(10) })).rejects.toThrow(/multiple of 64/);
    await expect(s.generate({ maxTokens: 3 }).result).rejects.toMatchObject({ code: "BAD_STATE" });
  });

  it("a second call while one runs is refused with BUSY", async () => {
    const decoder = await Decoder.load(src, { threads: 1 });
    const s = decoder.createSession();
    const first = s.prefill({ tokens: [0, 5, 6] });
    await expect(s.prefill({ tokens: [7] })).rejects.toMatchObject({ code: "BUSY" });
    await first;
    await expect(s.generate({ maxTokens: 2 }).result).resolves.toMatchObject({ reason: "length" });
  });
});
