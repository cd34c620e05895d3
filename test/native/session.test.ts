// Session bookkeeping: R-SWA keeps the cache constant, retiring frees entries, positions keep counting.
import { describe, expect, it } from "vitest";
import { Decoder } from "../../src/native/index.js";
import { loadGolden, prefixInput } from "./helpers.js";

const g = loadGolden("tiny-model");

describe("session memory and positions", () => {
  it("R-SWA: live entries and cache bytes stop growing after `window` generated tokens", async () => {
    const decoder = await Decoder.load(g.dir, { threads: 1 });
    const s = decoder.createSession({ attention: { kind: "rswa", window: 16 } });
    const p = await s.prefill(prefixInput(g));
    const sizes: { live: number; bytes: number }[] = [];
    await s.generate({ maxTokens: 200 }).result;
    sizes.push({ live: s.stats().liveEntries, bytes: s.stats().cacheBytes });
    await s.generate({ maxTokens: 100 }).result;
    sizes.push({ live: s.stats().liveEntries, bytes: s.stats().cacheBytes });
    // prefix + the window (the last generated token is not fed until the next call).
    expect(sizes[0]!.live).toBe(p.count + 16);
    expect(sizes[1]).toEqual(sizes[0]);
    expect(s.stats().length).toBe(p.count + 300);
  });

  it("full attention grows; retiring a range frees those entries and later steps still run", async () => {
    const decoder = await Decoder.load(g.dir, { threads: 1 });
    const s = decoder.createSession();
    const p = await s.prefill(prefixInput(g));
    await s.generate({ maxTokens: 50 }).result;
    expect(s.stats().liveEntries).toBe(p.count + 49);
    await s.retire(4, 16); // the visual block of the golden prefix
    expect(s.stats().liveEntries).toBe(p.count + 50 - 12);
    const before = s.stats().cacheBytes;
    const next = await s.extend({ tokens: [5, 6, 7, 8, 9, 10] }); // reuses the freed slots
    expect(next.start).toBe(p.count + 50);
    expect(s.stats().cacheBytes).toBe(before);
    await expect(s.retire(0, 10_000)).rejects.toMatchObject({ code: "BAD_INPUT" });
  });

  it("dispose frees the session; later calls fail with BAD_STATE", async () => {
    const decoder = await Decoder.load(g.dir, { threads: 1 });
    const s = decoder.createSession();
    await s.prefill(prefixInput(g));
    expect(s.stats().cacheBytes).toBeGreaterThan(0);
    s.dispose();
    expect(() => s.stats()).toThrow(expect.objectContaining({ code: "BAD_STATE" }));
    await expect(s.prefill({ tokens: [1] })).rejects.toMatchObject({ code: "BAD_STATE" });
  });

  it("stop tokens end generation and are included; cancel stops early", async () => {
    const decoder = await Decoder.load(g.dir, { threads: 1 });
    const s = decoder.createSession();
    await s.prefill(prefixInput(g));
    const want = g.cases.greedy_full.tokens;
    const stopAt = want[5]!;
    const r = await s.generate({ maxTokens: 100, stopTokens: [stopAt] }).result;
    expect(r.reason).toBe("stop");
    expect(r.tokens).toEqual(want.slice(0, want.indexOf(stopAt) + 1));

    const s2 = decoder.createSession();
    await s2.prefill(prefixInput(g));
    const stream = s2.generate({ maxTokens: 100_000 });
    let n = 0;
    for await (const _ of stream) if (++n === 3) break; // break calls return(): cancels the native loop
    const res = await stream.result;
    expect(res.reason).toBe("cancelled");
    expect(res.tokens.length).toBeLessThan(100_000);
  });
});
