// Runner-ups (GenerateOptions.alternatives): each generated token's next-ranked tokens and their logit margins, checked
// against the logits of the same tokens fed back in one pass.
import { describe, expect, it } from "vitest";
import { Decoder, type GenerateOptions, type GenerateResult, RUNNER_UPS } from "../../src/native/index.js";
import { loadAttentionCases } from "./attention-cases.js";
import { loadGolden, prefixInput } from "./helpers.js";

describe("runner-ups (tiny-model-tied)", () => {
  const g = loadGolden("tiny-model-tied");
  const c = loadAttentionCases("tiny-model-tied").find((x) => x.name === "rswa_long")!;
  // (full attention: a token fed back by extend is attended as the generated one was; under R-SWA it would join the
  // global prefix instead of the window)
  const attention = { kind: "full" as const };

  async function generate(options: Omit<GenerateOptions, "maxTokens">): Promise<GenerateResult> {
    const decoder = await Decoder.load(g.dir, { threads: 1 });
    const s = decoder.createSession({ attention });
    await s.prefill(prefixInput(g, "prefix_long"));
    const stream = s.generate({ maxTokens: c.maxTokens, ...options });
    for await (const _ of stream);
    return stream.result;
  }

  /** The logits before each of `tokens` was chosen: the prefix's last, then those of the tokens fed back one at a
   * time, as generation feeds them. */
  async function stepLogits(tokens: readonly number[]): Promise<Float32Array[]> {
    const decoder = await Decoder.load(g.dir, { threads: 1 });
    const s = decoder.createSession({ attention });
    const out = [(await s.prefill(prefixInput(g, "prefix_long"))).logits];
    for (const token of tokens.slice(0, -1)) out.push((await s.extend({ tokens: [token] })).logits);
    return out;
  }

  /** The RUNNER_UPS best tokens of `logits` besides `chosen` and those of `banned`, best first. */
  function expected(logits: Float32Array, chosen: number, banned: ReadonlySet<number>): number[] {
    return Array.from(logits.keys())
      .filter((t) => t !== chosen && !banned.has(t))
      .sort((a, b) => logits[b]! - logits[a]!)
      .slice(0, RUNNER_UPS);
  }

  it("none unless asked for; asked for, the tokens are the same", async () => {
    const plain = await generate({});
    expect(plain.alternatives).toBeUndefined();
    const asked = await generate({ alternatives: true });
    expect(asked.tokens).toEqual(plain.tokens);
    expect(asked.tokens.length).toBe(c.maxTokens);
    expect(asked.alternatives!.tokens.length).toBe(RUNNER_UPS * asked.tokens.length);
    expect(asked.alternatives!.margins.length).toBe(RUNNER_UPS * asked.tokens.length);
  });

  it("each step's runner-ups are its next-ranked tokens, best first, each its logit margin below the token chosen", async () => {
    const { tokens, alternatives } = await generate({ alternatives: true });
    const logits = await stepLogits(tokens);
    tokens.forEach((token, i) => {
      const want = expected(logits[i]!, token, new Set());
      const got = Array.from(alternatives!.tokens.subarray(i * RUNNER_UPS, (i + 1) * RUNNER_UPS));
      // (ties in the logits may order equal tokens either way: compare their logits)
      expect(got.map((t) => logits[i]![t])).toEqual(want.map((t) => logits[i]![t]));
      got.forEach((t, k) => {
        const margin = alternatives!.margins[i * RUNNER_UPS + k]!;
        expect(margin).toBeGreaterThanOrEqual(0);
        expect(margin).toBeCloseTo(logits[i]![token]! - logits[i]![t]!, 4);
      });
    });
  });

  it("a banned token is never a runner-up", async () => {
    const free = await generate({ alternatives: true });
    // the first step's runner-up, banned: the step ranks the next ones instead
    const runnerUp = free.alternatives!.tokens[0]!;
    const { tokens, alternatives } = await generate({ alternatives: true, ban: [runnerUp] });
    expect(Array.from(alternatives!.tokens)).not.toContain(runnerUp);
    const logits = await stepLogits(tokens);
    expect(Array.from(alternatives!.tokens.subarray(0, RUNNER_UPS))).toEqual(expected(logits[0]!, tokens[0]!, new Set([runnerUp])));
  });
});
