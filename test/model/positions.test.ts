// Positions past the trained context (decoder.max_position_embeddings) behave as the reference's: plain integer
// positions with the unscaled rotary formula, never clamped, wrapped or rescaled. The reference decoder
// (python/ocr_tools/reference/deepseek_decoder.py, through ocr_tools.reference.past_context) and the native decoder read 4,160
// entries of the tiny random-weight model, whose trained context is 4,096; the logits of the last 64 entries,
// all at positions 4,096 and beyond, agree. (Needs PyTorch: npm run test:train.)
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { Decoder } from "../../src/native/index.js";
import { findPython, pythonEnv } from "../../src/model/convert.js";
import { loadGolden, nmse } from "../native/helpers.js";

const LENGTH = 4160;
const LAST = 64;

describe("positions past the trained context", () => {
  it(`the native decoder's logits at positions ${LENGTH - LAST}..${LENGTH - 1} equal the reference's (trained context 4,096)`, async () => {
    const g = loadGolden("tiny-model");
    const out = execFileSync(findPython(), ["-m", "ocr_tools.reference.past_context", g.dir, String(LENGTH), String(LAST)], {
      env: pythonEnv(),
      encoding: "utf8",
      maxBuffer: 64 << 20,
    });
    const ref = JSON.parse(out) as { max_position_embeddings: number; logits: number[][] };
    expect(LENGTH - LAST).toBeGreaterThanOrEqual(ref.max_position_embeddings);

    const decoder = await Decoder.load(g.dir, { threads: 2 });
    const vocab = decoder.config.vocab_size;
    const s = decoder.createSession();
    const ids = Array.from({ length: LENGTH }, (_, i) => 5 + ((7 * i) % (vocab - 5)));
    const r = await s.prefill({ tokens: ids }, { allLogits: true });
    s.dispose();
    const mine = r.logits.subarray((LENGTH - LAST) * vocab);
    const theirs = Float32Array.from(ref.logits.flat());
    expect(nmse(mine, theirs)).toBeLessThan(1e-9);
    for (let i = 0; i < LAST; i++) {
      const row = (a: ArrayLike<number>) => Array.prototype.slice.call(a, i * vocab, (i + 1) * vocab) as number[];
      const argmax = (v: number[]) => v.indexOf(Math.max(...v));
      expect(argmax(row(mine)), `position ${LENGTH - LAST + i}`).toBe(argmax(row(theirs)));
    }
  }, 300_000);
});
