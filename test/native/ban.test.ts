// Token bans (GenerateOptions.ban): a banned token is never generated in the call, alongside the no-repeat rule.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Decoder, DecoderError, type GenerateOptions } from "../../src/native/index.js";
import { loadAttentionCases } from "./attention-cases.js";
import { loadGolden, prefixInput } from "./helpers.js";

describe("token bans (tiny-model-tied)", () => {
  const g = loadGolden("tiny-model-tied");
  const c = loadAttentionCases("tiny-model-tied").find((x) => x.name === "rswa_long")!;
  const vocab = (JSON.parse(readFileSync(path.join(g.dir, "model.json"), "utf8")) as { decoder: { vocab_size: number } }).decoder
    .vocab_size;
  async function run(options: Omit<GenerateOptions, "maxTokens">): Promise<number[]> {
    const decoder = await Decoder.load(g.dir, { threads: 1 });
    const s = decoder.createSession({ attention: { kind: "rswa", window: c.window! } });
    await s.prefill(prefixInput(g, "prefix_long"));
    const out: number[] = [];
    for await (const t of s.generate({ maxTokens: c.maxTokens, ...options })) out.push(t);
    return out;
  }
  // a token the reference writes more than once, first at step `first` (not the first step)
  const repeated = c.tokens.find((t, i) => i > 0 && c.tokens.indexOf(t) === i && c.tokens.lastIndexOf(t) > i)!;
  const first = c.tokens.indexOf(repeated);

  it("a banned token is never written: the same tokens up to its first step, another there", async () => {
    expect(first).toBeGreaterThan(0);
    expect(await run({ ban: [] })).toEqual(c.tokens);
    const out = await run({ ban: [repeated] });
    expect(out.slice(0, first)).toEqual(c.tokens.slice(0, first));
    expect(out[first]).not.toBe(repeated);
    expect(out).not.toContain(repeated);
  });

  it("the ban holds beside the no-repeat rule's own bans, step after step", async () => {
    const noRepeat = { n: 2, lookback: 0 };
    const free = await run({ noRepeat });
    const banned = free.find((t, i) => i > 0 && free.indexOf(t) === i && free.lastIndexOf(t) > i)!;
    expect(banned).toBeDefined();
    const out = await run({ noRepeat, ban: [banned] });
    expect(out.slice(0, free.indexOf(banned))).toEqual(free.slice(0, free.indexOf(banned)));
    expect(out).not.toContain(banned);
  });

  it("bans of tokens never written change nothing; ids outside the vocabulary are refused", async () => {
    const unused = Array.from({ length: vocab }, (_, t) => t).filter((t) => !c.tokens.includes(t));
    expect(await run({ ban: unused })).toEqual(c.tokens);
    await expect(run({ ban: [vocab] })).rejects.toThrow(DecoderError);
    await expect(run({ ban: [-1] })).rejects.toThrow(/ban/);
  });

  it("a ban of every token is lifted (the argmax is written)", async () => {
    const all = Array.from({ length: vocab }, (_, t) => t);
    expect(await run({ ban: all })).toEqual(c.tokens);
  });
});
