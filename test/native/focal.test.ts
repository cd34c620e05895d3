// Focal pruning: tau = 1 is exactly unpruned; pruned runs equal the PyTorch focal reference token for token.
import { describe, expect, it } from "vitest";
import { Decoder, DecoderError } from "../../src/native/index.js";
import { collect, loadAttentionCases } from "./attention-cases.js";
import { loadGolden, prefixInput } from "./helpers.js";

describe("focal pruning (tiny-model, f32)", () => {
  const g = loadGolden("tiny-model");
  const visualRows = g.cases.prefix_long.visualRows;

  for (const [attention, layers] of [
    [{ kind: "full" as const }, 1],
    [{ kind: "rswa" as const, window: 8 }, 2],
  ] as const) {
    it(`keep = 1 gives exactly the unpruned tokens and logits (${attention.kind}, ${layers} focal layer${layers > 1 ? "s" : ""})`, async () => {
      const decoder = await Decoder.load(g.dir, { threads: 2, minParallelWork: 0 });
      const plain = decoder.createSession({ attention });
      const focal = decoder.createSession({ attention, focal: { keep: 1, layers, warmup: 2 }, recordFixations: true });
      await plain.prefill(prefixInput(g, "prefix_long"));
      await focal.prefill(prefixInput(g, "prefix_long"));
      expect(await collect(focal, 40)).toEqual(await collect(plain, 40));
      expect(Array.from(focal.lastLogits())).toEqual(Array.from(plain.lastLogits()));
      expect(focal.stats().focalLayers).toHaveLength(layers);
      const fx = focal.takeFixations();
      expect(fx.length).toBe(40 - 1 - 2); // decode steps after the warm-up
      for (const f of fx) expect(f.visual).toHaveLength(visualRows);
    });
  }

  it("pruning changes what the model attends: keep 0.1 and keep 1 give different logits", async () => {
    const decoder = await Decoder.load(g.dir, { threads: 1 });
    const a = decoder.createSession({ focal: { keep: 1, layers: 1, warmup: 1 } });
    const b = decoder.createSession({ focal: { keep: 0.1, layers: 1, warmup: 1 } });
    await a.prefill(prefixInput(g, "prefix_long"));
    await b.prefill(prefixInput(g, "prefix_long"));
    await collect(a, 6);
    await collect(b, 6);
    expect(Array.from(a.lastLogits())).not.toEqual(Array.from(b.lastLogits()));
    expect(b.stats().decodeSteps).toBe(5);
    expect(b.stats().attentionMs).toBeGreaterThan(0);
  });

  it("rejects bad focal options with a clear error", async () => {
    const decoder = await Decoder.load(g.dir, { threads: 1 });
    expect(() => decoder.createSession({ focal: { keep: 0, layers: 1, warmup: 1 } })).toThrow(/focal\.keep/);
    expect(() => decoder.createSession({ focal: { keep: 0.5, layers: 9, warmup: 1 } })).toThrow(/focal\.layers/);
    expect(() => decoder.createSession({ focal: { keep: 0.5, layers: 1, warmup: 0 } })).toThrow(DecoderError);
  });
});

// tiny-model picks layer 0 as focal; tiny-model-tied (f16 weights) picks layers 1 and 2, so its layer 0 runs on the
// set the last focal layer chose in the previous step (cross-step reuse).
for (const model of ["tiny-model", "tiny-model-tied"]) {
  describe(`focal pruning against the PyTorch focal reference (${model})`, () => {
    const g = loadGolden(model);
    const visualRows = g.cases.prefix_long.visualRows;
    for (const c of loadAttentionCases(model).filter((x) => x.focal)) {
      it(`${c.name}: keep ${c.focal!.keep}, ${c.focal!.layers} layer(s), warm-up ${c.focal!.warmup}${c.window ? `, R-SWA ${c.window}` : ""} equals the reference (focal layers ${c.focalLayers})`, async () => {
        const decoder = await Decoder.load(g.dir, { threads: 2, minParallelWork: 0 });
        const s = decoder.createSession({
          attention: c.window ? { kind: "rswa", window: c.window } : { kind: "full" },
          focal: c.focal!,
          recordFixations: true,
        });
        const prefix = prefixInput(g, "prefix_long");
        await s.prefill(prefix);
        const tokens = await collect(s, c.extendAt ?? c.maxTokens);
        const fx = s.takeFixations();
        let firstView = fx.length;
        if (c.extendAt !== undefined) {
          // A second view mid-generation (the same rows again): its first `warmup` decode steps attend fully,
          // so no fixation is recorded for them; pruning then resumes over both views' visual entries.
          expect(fx).toHaveLength(c.extendAt - 1 - c.focal!.warmup);
          const viewStart = prefix.tokens.length + visualRows + c.extendAt;
          await s.extend({
            tokens: [],
            embeddings: prefix.embeddings,
            embeddingPositions: Array.from({ length: visualRows }, (_, i) => i),
          });
          tokens.push(...(await collect(s, c.maxTokens - c.extendAt)));
          // extend() first feeds the last generated token: a pruned step of the first view.
          const [fed, ...after] = s.takeFixations();
          expect(fed.position).toBe(viewStart - 1);
          fx.push(fed);
          expect(after).toHaveLength(c.maxTokens - c.extendAt - 1 - c.focal!.warmup);
          for (const f of after) {
            expect(f.position).toBeGreaterThanOrEqual(viewStart + visualRows + c.focal!.warmup);
            expect(f.visual).toHaveLength(Math.ceil(c.focal!.keep * 2 * visualRows));
          }
          firstView = fx.length;
          fx.push(...after);
        }
        expect(tokens).toEqual(c.tokens);
        expect(s.stats().focalLayers).toEqual(c.focalLayers);
        expect(fx.map((f) => f.visual)).toEqual(c.fixations);
        for (const f of fx.slice(0, firstView)) expect(f.visual).toHaveLength(Math.ceil(c.focal!.keep * visualRows));
        expect(s.takeFixations()).toEqual([]);
      });
    }
  });
}

describe("Session.setFocal", () => {
  const g = loadGolden("tiny-model");
  it("switching focal pruning on mid-session with keep = 1 leaves the tokens unchanged; bad options are refused", async () => {
    const decoder = await Decoder.load(g.dir, { threads: 1 });
    const plain = decoder.createSession();
    const s = decoder.createSession();
    await plain.prefill(prefixInput(g, "prefix_long"));
    await s.prefill(prefixInput(g, "prefix_long"));
    const first = await collect(s, 8);
    s.setFocal({ keep: 1, layers: 2, warmup: 2 });
    const rest = await collect(s, 16);
    expect([...first, ...rest]).toEqual(await collect(plain, 24));
    expect(s.stats().focalLayers).toHaveLength(2);
    expect(() => s.setFocal({ keep: 1.5, layers: 1, warmup: 1 })).toThrow(/focal\.keep/);
    s.setFocal(undefined);
    expect(s.stats().focalLayers).toEqual([]);
  });
});
