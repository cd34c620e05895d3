// R-SWA through many ring wraps (72 tokens, window 8) against the PyTorch reference's banded mask, f32 and bf16 weights.
import { describe, expect, it } from "vitest";
import { Decoder } from "../../src/native/index.js";
import { collect, loadAttentionCases } from "./attention-cases.js";
import { loadGolden, prefixInput } from "./helpers.js";

for (const model of ["tiny-model", "tiny-model-bf16"]) {
  describe(`${model}: long R-SWA`, () => {
    const g = loadGolden(model);
    const c = loadAttentionCases(model).find((x) => x.name === "rswa_long")!;

    it(`${c.maxTokens} tokens with window ${c.window} (${Math.floor(c.maxTokens / c.window!)} wraps) equal the reference token for token`, async () => {
      expect(c.maxTokens).toBeGreaterThan(4 * c.window!);
      const decoder = await Decoder.load(g.dir, { threads: 2, minParallelWork: 0 });
      const s = decoder.createSession({ attention: { kind: "rswa", window: c.window! } });
      await s.prefill(prefixInput(g, "prefix_long"));
      const bytes: number[] = [];
      const out: number[] = [];
      // Generate in chunks to watch the cache: constant once the ring is full.
      for (let done = 0; done < c.maxTokens; done += 12) {
        out.push(...(await collect(s, Math.min(12, c.maxTokens - done))));
        bytes.push(s.stats().cacheBytes);
      }
      expect(out).toEqual(c.tokens);
      expect(new Set(bytes.slice(1)).size).toBe(1);
      expect(s.stats().liveEntries).toBe(g.cases.prefix_long.tokens.length + c.window!);
    });

    it("full attention on the same prefix differs from R-SWA once the window is exceeded (the test can tell them apart)", async () => {
      const decoder = await Decoder.load(g.dir, { threads: 1 });
      const s = decoder.createSession();
      await s.prefill(prefixInput(g, "prefix_long"));
      const full = await collect(s, c.maxTokens);
      expect(full).not.toEqual(c.tokens);
      expect(s.stats().cacheBytes).toBeGreaterThan(0);
    });
  });
}
