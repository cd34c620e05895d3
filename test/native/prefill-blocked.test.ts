// Prefill attention runs blocked (query tiles against key tiles, online softmax) once an extend has
// kBlockedMinQueries entries or more; an extend of one entry runs the per-query path. Feeding the same entries one
// by one must therefore give the same logits and tokens as one extend, whatever the attention policy put in the key
// list: an R-SWA ring that has wrapped (generated entries out of the window), a retired range, visual rows.
import { describe, expect, it } from "vitest";
import { Decoder, type KvDtype, type Session } from "../../src/native/index.js";
import { loadGolden, nmse, prefixInput } from "./helpers.js";

const g = loadGolden("tiny-model");
const hidden = g.tensors.get("prefix.visual")!.shape[1]!;

async function collect(session: Session, maxTokens: number): Promise<number[]> {
  const out: number[] = [];
  for await (const t of session.generate({ maxTokens })) out.push(t);
  return out;
}

// Entries of a page: token ids, with visual rows (embeddings) at every third place.
function page(n: number, seed: number): { tokens: number[]; embeddings: Float32Array; embeddingPositions: number[] } {
  const tokens: number[] = [];
  const positions: number[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 3 === 1) positions.push(i);
    else tokens.push(5 + ((i * 7 + seed) % 40));
  }
  const embeddings = new Float32Array(positions.length * hidden);
  let s = seed;
  for (let i = 0; i < embeddings.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    embeddings[i] = (s / 2 ** 32 - 0.5) * 0.2;
  }
  return { tokens, embeddings, embeddingPositions: positions };
}

// The same entries as a sequence of single-entry extends; returns the logits of each, concatenated.
async function oneByOne(s: Session, input: ReturnType<typeof page>): Promise<Float32Array> {
  const total = input.tokens.length + input.embeddingPositions.length;
  const rows: Float32Array[] = [];
  let t = 0,
    e = 0;
  for (let i = 0; i < total; i++) {
    const r =
      input.embeddingPositions[e] === i
        ? await s.extend({ tokens: [], embeddings: input.embeddings.subarray(e * hidden, ++e * hidden) })
        : await s.extend({ tokens: [input.tokens[t++]!] });
    rows.push(r.logits);
  }
  const out = new Float32Array(rows.length * rows[0]!.length);
  rows.forEach((r, i) => out.set(r, i * r.length));
  return out;
}

describe("blocked prefill attention equals the per-query path in a session", () => {
  for (const [kvDtype, tol] of [
    ["f32", 1e-9],
    ["bf16", 1e-3],
  ] as [KvDtype, number][]) {
    it(`R-SWA ring wrapped, a retired range, then a 101-entry page (${kvDtype} cache, 2 threads)`, async () => {
      const decoder = await Decoder.load(g.dir, { threads: 2, minParallelWork: 0 });
      const blocked = decoder.createSession({ attention: { kind: "rswa", window: 5 }, kvDtype });
      const single = decoder.createSession({ attention: { kind: "rswa", window: 5 }, kvDtype });
      const prefix = prefixInput(g);
      const a0 = await blocked.prefill(prefix);
      // The prefix one entry at a time: the same tokens and visual rows, in order.
      const p0 = await oneByOne(single, {
        tokens: prefix.tokens,
        embeddings: prefix.embeddings,
        embeddingPositions: prefix.embeddingPositions,
      });
      expect(nmse(p0.subarray(p0.length - a0.logits.length), a0.logits)).toBeLessThan(tol);
      // 9 generated tokens with a window of 5: the ring has wrapped; then the visual block retires.
      const ta = await collect(blocked, 9);
      expect(await collect(single, 9)).toEqual(ta);
      await blocked.retire(4, 16);
      await single.retire(4, 16);
      const next = page(101, 3); // 101 = four query tiles of 24 (48 rows / 2 heads per kv head) and 5 over
      const a1 = await blocked.extend(next, { allLogits: true });
      const p1 = await oneByOne(single, next);
      expect(nmse(p1, a1.logits)).toBeLessThan(tol);
      expect(await collect(single, 12)).toEqual(await collect(blocked, 12));
    });
  }
});
