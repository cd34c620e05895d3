// How the weights are held (DecoderOptions.pages, ops/safetensors.h): a copy in anonymous memory reads exactly what
// the mapping reads, is reported, and sits in huge pages where the kernel gives them; bad files fail alike either way.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Decoder, DecoderError, type WeightPages } from "../../src/native/index.js";

const bundle = path.resolve(import.meta.dirname, "../../models/default");
const work = mkdtempSync(path.join(tmpdir(), "ocr-pages-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// the kernel gives anonymous memory huge pages when advised ("always" or "madvise")
const thp = (() => {
  try {
    return /\[(always|madvise)\]/.test(readFileSync("/sys/kernel/mm/transparent_hugepage/enabled", "utf8"));
  } catch {
    return false;
  }
})();

async function logitsWith(pages: WeightPages) {
  const d = await Decoder.load(bundle, { threads: 1, pages });
  const s = d.createSession({});
  const { logits } = await s.prefill({ tokens: [0, 17, 42, 99, 7, 120] });
  s.dispose();
  return { d, logits: Float32Array.from(logits) };
}

describe("weight pages", () => {
  it("a copy reads the same logits as the mapping, and says it was copied", async () => {
    const mapped = await logitsWith("map");
    const copied = await logitsWith("copy");
    expect(mapped.d.info.copiedBytes).toBe(0);
    expect(copied.d.info.copiedBytes).toBe(copied.d.info.mappedBytes);
    expect(copied.d.info.mappedBytes).toBeGreaterThan(4 << 20);
    expect(Array.from(copied.logits)).toEqual(Array.from(mapped.logits));
  });

  it.runIf(thp)("a copy is held in huge pages", async () => {
    const { d } = await logitsWith("copy");
    // a 9.8 MB file: at least its whole 2 MB pages but one
    expect(d.hugePageBytes()).toBeGreaterThanOrEqual(d.info.mappedBytes - (4 << 20));
    expect(d.hugePageBytes()).toBeLessThanOrEqual(d.info.mappedBytes + (2 << 20));
  });

  it("auto maps a file under 64 MB", async () => {
    const { d } = await logitsWith("auto");
    expect(d.info.copiedBytes).toBe(0);
  });

  it("a truncated file fails as clearly when it is copied", async () => {
    const dir = path.join(work, "truncated");
    mkdirSync(dir, { recursive: true });
    copyFileSync(path.join(bundle, "model.json"), path.join(dir, "model.json"));
    const bytes = readFileSync(path.join(bundle, "model.safetensors"));
    writeFileSync(path.join(dir, "model.safetensors"), bytes.subarray(0, bytes.length - 1000));
    const err = await Decoder.load(dir, { threads: 1, pages: "copy" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DecoderError);
    expect((err as DecoderError).code).toBe("BAD_WEIGHTS");
    expect((err as DecoderError).message).toMatch(/model\.safetensors.*past the data section/);
  });

  it("an unknown choice is an error naming the option", async () => {
    const err = await Decoder.load(bundle, { threads: 1, pages: "huge" as WeightPages }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/pages/);
    expect((err as Error).message).toMatch(/"auto", "map" or "copy"/);
  });
});
