// The native decoder against the PyTorch reference's golden dumps: per-layer NMSE, logits, greedy tokens.
import { describe, expect, it } from "vitest";
import { Decoder, type KvDtype, type Session } from "../../src/native/index.js";
import { loadGolden, nmse, prefixInput, type Golden } from "./helpers.js";

// Tolerances by weight dtype of the fixture. The reference computes in f32 from the same (rounded) weights,
// so only summation order differs: f32 ~1e-12. f16/bf16 KV caches round every key/value to 8-11 bits of
// mantissa, hence the looser bounds in those cases (see the kv-dtype test).
const TOL_F32_CACHE = 1e-9;

const models = [
  { dir: "tiny-model", what: "f32 weights" },
  { dir: "tiny-model-bf16", what: "bf16 weights" },
  { dir: "tiny-model-tied", what: "f16 weights, tied lm_head, renormalised top-k, sharded" },
];

async function collect(session: Session, opts: Parameters<Session["generate"]>[0]): Promise<number[]> {
  const out: number[] = [];
  for await (const t of session.generate(opts)) out.push(t);
  return out;
}

for (const m of models) {
  describe(`${m.dir} (${m.what})`, () => {
    const g: Golden = loadGolden(m.dir);

    for (const [threads, which] of [
      [1, "prefix"],
      [2, "prefix"],
      [1, "prefix_long"],
      [2, "prefix_long"],
    ] as const) {
      it(`prefill of ${which} (${g.cases[which].tokens.length} entries) matches the reference layer by layer (${threads} thread${threads > 1 ? "s" : ""})`, async () => {
        const decoder = await Decoder.load(g.dir, { threads, minParallelWork: 0 });
        const s = decoder.createSession();
        const r = await s.prefill(prefixInput(g, which), { captureHidden: true, allLogits: true });
        const hidden = g.tensors.get(`${which}.hidden`)!;
        const [layers, T, H] = hidden.shape as [number, number, number];
        expect(r.count).toBe(T);
        for (let l = 0; l < layers; l++) {
          const got = r.hidden!.subarray(l * T * H, (l + 1) * T * H);
          const want = hidden.data.subarray(l * T * H, (l + 1) * T * H);
          expect(nmse(got, want), `layer ${l}`).toBeLessThan(TOL_F32_CACHE);
        }
        expect(nmse(r.logits, g.tensors.get(`${which}.logits`)!.data)).toBeLessThan(TOL_F32_CACHE);
      });
    }

    for (const threads of [1, 2]) {
      it(`greedy tokens match exactly: full attention, no-repeat rule, R-SWA (${threads} thread${threads > 1 ? "s" : ""})`, async () => {
        const decoder = await Decoder.load(g.dir, { threads, minParallelWork: 0 });
        const full = decoder.createSession();
        await full.prefill(prefixInput(g));
        expect(await collect(full, { maxTokens: g.cases.greedy_full.maxTokens })).toEqual(g.cases.greedy_full.tokens);

        const nr = decoder.createSession();
        await nr.prefill(prefixInput(g));
        // the golden names the rule's look-back `window`, as model.json does
        const { n, window: lookback, exempt } = g.cases.greedy_no_repeat.noRepeat;
        expect(await collect(nr, { maxTokens: g.cases.greedy_no_repeat.maxTokens, noRepeat: { n, lookback, exempt } })).toEqual(
          g.cases.greedy_no_repeat.tokens,
        );

        const rs = decoder.createSession({ attention: { kind: "rswa", window: g.cases.greedy_rswa.window } });
        await rs.prefill(prefixInput(g));
        expect(await collect(rs, { maxTokens: g.cases.greedy_rswa.maxTokens })).toEqual(g.cases.greedy_rswa.tokens);
      });
    }

    it("streaming layout: page, generate, retire the page's visual range, next page, generate", async () => {
      const c = g.cases.streaming;
      const decoder = await Decoder.load(g.dir, { threads: 2, minParallelWork: 0 });
      const s = decoder.createSession({ attention: { kind: "rswa", window: c.window } });
      await s.prefill({ tokens: c.prompt, embeddings: g.tensors.get("streaming.visual1")!.data });
      expect(await collect(s, { maxTokens: c.page1.length })).toEqual(c.page1);
      await s.retire(c.retire[0], c.retire[1]);
      const page2 = await s.extend({ tokens: [], embeddings: g.tensors.get("streaming.visual2")!.data });
      expect(page2.start).toBe(c.prompt.length + c.visualRows + c.page1.length);
      expect(await collect(s, { maxTokens: c.page2.length })).toEqual(c.page2);
    });
  });
}

describe("KV cache dtypes", () => {
  const g = loadGolden("tiny-model-bf16");
  for (const [kv, tol] of [
    ["f16", 1e-5],
    ["bf16", 1e-3],
  ] as [KvDtype, number][]) {
    // Loosened: every cached key/value is rounded to f16 (11-bit) or bf16 (8-bit) mantissas.
    it(`${kv} cache keeps the logits close to the reference`, async () => {
      const decoder = await Decoder.load(g.dir, { threads: 2, minParallelWork: 0 });
      const s = decoder.createSession({ kvDtype: kv });
      const r = await s.prefill(prefixInput(g), { allLogits: true });
      const e = nmse(r.logits, g.tensors.get("prefix.logits")!.data);
      expect(e).toBeLessThan(tol);
      expect(e).toBeGreaterThan(0); // the rounding really happens
    });
  }
});
