// Whole-document Unlimited-OCR passes on the tiny random-weight decoder: pages of the real per-page shape (Base:
// 16 × 17 + 1 = 273 visual rows) enter in turn and retire after their marker, under R-SWA, with no page cap.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { documentPass, type PassPage, type PassText } from "../../../src/engines/model/document-pass.js";
import { Decoder } from "../../../src/native/index.js";
import { loadGolden } from "../../native/helpers.js";

const ROWS = 273; // one Base view: what a page of a multi-page Unlimited-OCR pass is
const MARKER = "<PAGE>";

/** A test vocabulary for the 320-id tiny model: one printable character per id, `markerId` written as <PAGE>. */
function vocabulary(markerId: number): PassText {
  const chars = Array.from({ length: 320 }, (_, i) => (i === markerId ? MARKER : String.fromCharCode(0x4e00 + i)));
  return {
    decode: (ids) => ids.map((i) => chars[i]!).join(""),
    encode: (text) => (text === MARKER ? [markerId] : [...text].map((c) => c.charCodeAt(0) - 0x4e00)),
  };
}

/** Deterministic pseudo-random visual rows (page `index`), scaled like embeddings. */
function pageRows(index: number, hidden: number): Float32Array {
  const out = new Float32Array(ROWS * hidden);
  let x = (index + 1) * 2654435761;
  for (let i = 0; i < out.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = (x / 2 ** 32 - 0.5) * 0.5;
  }
  return out;
}

async function run(
  model: string,
  pages: number,
  window: number,
  maxTokens: number,
  text: PassText,
  unreadable: number[] = [],
): Promise<{ out: PassPage[]; maxPositions: number }> {
  const g = loadGolden(model);
  const decoder = await Decoder.load(g.dir, { threads: 2 });
  const session = decoder.createSession({ attention: { kind: "rswa", window } });
  const hidden = decoder.config.hidden_size;
  // BOS, the placeholder's span, "Multi page parsing." as five ids of the tiny vocabulary
  const prompt = { ids: [0, 40, 41, 42, 43, 44], visualStart: 1 };
  const out: PassPage[] = [];
  const seen: number[] = [];
  const views = async (i: number) => {
    seen.push(i);
    return unreadable.includes(i) ? undefined : pageRows(i, hidden);
  };
  for await (const p of documentPass(session, pages, views, { prompt, text, marker: MARKER, eos: 1, maxTokens }, hidden)) out.push(p);
  // each page was asked for once, in order, when its turn came
  expect(seen).toEqual(Array.from({ length: pages }, (_, i) => i));
  session.dispose();
  const json = JSON.parse(readFileSync(path.join(g.dir, "model.json"), "utf8")) as { decoder: { max_position_embeddings: number } };
  return { out, maxPositions: json.decoder.max_position_embeddings };
}

describe("whole-document pass (Unlimited-OCR shape, random weights)", () => {
  it("30 pages in one pass: the cache is constant after the first page and the output splits into 30 pages", async () => {
    // the window and per-page cap of Unlimited-OCR's shape scaled to the tiny model: 128 generated entries in view
    const { out, maxPositions } = await run("tiny-model", 30, 128, 160, vocabulary(4));
    expect(out).toHaveLength(30);
    const bytes = out.map((p) => p.cache.bytes);
    const live = out.map((p) => p.cache.liveEntries);
    expect(new Set(bytes.slice(1)).size, `cache bytes per page: ${bytes.join(", ")}`).toBe(1);
    expect(bytes[0]).toBeLessThanOrEqual(bytes[1]!);
    // live entries: the prompt, one page of visual rows, the window, and the marker entries that closed cut-off
    // pages (each attended one page longer, as the streaming layout does): never a second page of rows
    const base = 6 + ROWS + 128;
    expect(Math.min(...live.slice(1)), `live entries per page: ${live.join(", ")}`).toBeGreaterThanOrEqual(base - 1);
    expect(Math.max(...live.slice(1)), `live entries per page: ${live.join(", ")}`).toBeLessThanOrEqual(base + 3);
    // the pass ran past the trained context (4,096 positions) without a cap, as the reference would
    expect(out.at(-1)!.cache.length).toBeGreaterThan(maxPositions);
    expect(out.every((p) => !p.text.includes(MARKER))).toBe(true);
    expect(out.every((p) => p.tokens > 0)).toBe(true);
  }, 300_000);

  it("20 pages: the cache stays constant page after page (bf16 weights, a small window)", async () => {
    const { out } = await run("tiny-model-bf16", 20, 8, 24, vocabulary(4));
    expect(out).toHaveLength(20);
    expect(new Set(out.slice(1).map((p) => p.cache.bytes)).size).toBe(1);
    const live = out.slice(1).map((p) => p.cache.liveEntries);
    expect(Math.max(...live) - Math.min(...live), `live entries per page: ${live.join(", ")}`).toBeLessThanOrEqual(3);
  }, 300_000);

  it("a page ends where the model writes the marker; a marker before any text opens the page instead", async () => {
    // greedy decoding is deterministic: write the token the model likes most as the marker, so pages end on it
    const probe = await run("tiny-model", 3, 16, 40, vocabulary(4));
    const counts = new Map<number, number>();
    const text = vocabulary(4);
    for (const p of probe.out)
      for (const c of p.text) {
        const id = text.encode(c)[0]!;
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
    const favourite = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    const { out } = await run("tiny-model", 6, 16, 40, vocabulary(favourite));
    expect(out).toHaveLength(6);
    expect(out.some((p) => p.end === "marker")).toBe(true);
    for (const p of out) {
      expect(p.text).not.toContain(MARKER);
      // a page closed by its marker has text: an empty page before a marker would be the opening marker
      if (p.end === "marker") expect(p.text.trim().length).toBeGreaterThan(0);
    }
  }, 300_000);

  it("a page that cannot be read is skipped: the pages around it are read in the same pass", async () => {
    const { out } = await run("tiny-model", 5, 16, 24, vocabulary(4), [0, 2]);
    expect(out.map((p) => p.end === "unreadable")).toEqual([true, false, true, false, false]);
    expect(out[0]!.cache.length).toBe(0);
    expect(out[1]!.tokens).toBeGreaterThan(0);
    expect(out[3]!.cache.bytes).toBe(out[4]!.cache.bytes);
  }, 300_000);
});
