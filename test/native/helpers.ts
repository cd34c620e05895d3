// Shared helpers for engine tests: golden fixtures (f32 safetensors + JSON) and error measures.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const fixturesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures");

export interface GoldenTensor {
  shape: number[];
  data: Float32Array;
}

/** Reads an f32-only safetensors file (the golden dumps are written that way). */
export function readF32Safetensors(file: string): Map<string, GoldenTensor> {
  const buf = readFileSync(file);
  const headerLen = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + headerLen).toString("utf8")) as Record<
    string,
    { dtype: string; shape: number[]; data_offsets: [number, number] }
  >;
  const base = 8 + headerLen;
  const out = new Map<string, GoldenTensor>();
  for (const [name, info] of Object.entries(header)) {
    if (name === "__metadata__") continue;
    if (info.dtype !== "F32") throw new Error(`${file}: ${name} is ${info.dtype}, expected F32`);
    const [b, e] = info.data_offsets;
    const bytes = buf.subarray(base + b, base + e);
    const data = new Float32Array(bytes.byteLength / 4);
    for (let i = 0; i < data.length; i++) data[i] = bytes.readFloatLE(i * 4);
    out.set(name, { shape: info.shape, data });
  }
  return out;
}

export interface Golden {
  dir: string;
  tensors: Map<string, GoldenTensor>;
  cases: {
    prefix: { tokens: number[]; visualRows: number };
    prefix_long: { tokens: number[]; visualRows: number };
    greedy_full: { maxTokens: number; tokens: number[] };
    greedy_no_repeat: { maxTokens: number; tokens: number[]; noRepeat: { n: number; window: number; exempt: number[] } };
    greedy_rswa: { window: number; maxTokens: number; tokens: number[] };
    streaming: { window: number; prompt: number[]; visualRows: number; page1: number[]; page2: number[]; retire: [number, number] };
  };
}

export function loadGolden(model: string): Golden {
  const dir = path.join(fixturesDir, model);
  return {
    dir,
    tensors: readF32Safetensors(path.join(dir, "golden/golden.safetensors")),
    cases: JSON.parse(readFileSync(path.join(dir, "golden/golden.json"), "utf8")) as Golden["cases"],
  };
}

/** Normalised mean squared error: sum((a-b)^2) / sum(b^2). */
export function nmse(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  if (actual.length !== expected.length) throw new Error(`length ${actual.length} != ${expected.length}`);
  let num = 0;
  let den = 0;
  for (let i = 0; i < expected.length; i++) {
    const d = actual[i]! - expected[i]!;
    num += d * d;
    den += expected[i]! * expected[i]!;
  }
  return num / Math.max(den, 1e-30);
}

/** Splits the golden prefix into token ids and embedding positions, as Session.prefill takes them. */
export function prefixInput(
  g: Golden,
  which: "prefix" | "prefix_long" = "prefix",
): { tokens: number[]; embeddings: Float32Array; embeddingPositions: number[] } {
  const seq = g.cases[which].tokens;
  return {
    tokens: seq.filter((t) => t >= 0),
    embeddings: g.tensors.get(`${which}.visual`)!.data,
    embeddingPositions: seq.flatMap((t, i) => (t < 0 ? [i] : [])),
  };
}
