// Run caps (GenerateOptions.maxRun): a token may not repeat more often in a row than its cap.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Decoder, DecoderError } from "../../src/native/index.js";
import { loadAttentionCases } from "./attention-cases.js";
import { loadGolden, prefixInput } from "./helpers.js";

function longestRun(tokens: number[]): number {
  let best = 0;
  for (let i = 0, run = 0; i < tokens.length; i++) best = Math.max(best, (run = i && tokens[i] === tokens[i - 1] ? run + 1 : 1));
  return best;
}

describe("run caps (tiny-model-tied, whose greedy output repeats tokens)", () => {
  const g = loadGolden("tiny-model-tied");
  const c = loadAttentionCases("tiny-model-tied").find((x) => x.name === "rswa_long")!;
  // the reference output has a run of three at 11..13
  const third = c.tokens.findIndex((t, i) => i >= 2 && t === c.tokens[i - 1] && t === c.tokens[i - 2]);

  const vocab = (JSON.parse(readFileSync(path.join(g.dir, "model.json"), "utf8")) as { decoder: { vocab_size: number } }).decoder
    .vocab_size;
  async function run(maxRun?: Map<number, number>): Promise<number[]> {
    const decoder = await Decoder.load(g.dir, { threads: 1 });
    const s = decoder.createSession({ attention: { kind: "rswa", window: c.window! } });
    await s.prefill(prefixInput(g, "prefix_long"));
    const out: number[] = [];
    for await (const t of s.generate({ maxTokens: c.maxTokens, maxRun })) out.push(t);
    return out;
  }

  it("uncapped, the reference tokens (with a run of three)", async () => {
    expect(third).toBeGreaterThan(0);
    expect(await run()).toEqual(c.tokens);
    expect(await run(new Map())).toEqual(c.tokens);
  });

  for (const cap of [1, 2]) {
    it(`cap ${cap} on every token: identical until a run would pass ${cap}, then another token; no longer run anywhere`, async () => {
      const caps = new Map(Array.from({ length: vocab }, (_, t) => [t, cap] as [number, number]));
      const out = await run(caps);
      const first = third - (2 - cap); // the step that would make the run cap + 1 long
      expect(out.slice(0, first)).toEqual(c.tokens.slice(0, first));
      expect(out[first]).not.toBe(c.tokens[first]);
      expect(longestRun(out)).toBeLessThanOrEqual(cap);
    });
  }

  it("a cap on other tokens changes nothing; bad caps are refused", async () => {
    const runner = c.tokens[third]!;
    const others = new Map(Array.from({ length: vocab }, (_, t) => [t, 1] as [number, number]).filter(([t]) => !c.tokens.includes(t)));
    expect(await run(others)).toEqual(c.tokens);
    await expect(run(new Map([[runner, 0]]))).rejects.toThrow(DecoderError);
    await expect(run(new Map([[vocab, 2]]))).rejects.toThrow(/maxRun/);
  });
});
