// Letter-run caps of line views (from the recogniser's reading of the line to the engine's maxRun), and the fallback to that reading.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { letterRunCaps, longestRuns } from "../../../src/engines/model/letter-runs.js";
import { Tokenizer } from "../../../src/model/tokenizer.js";

const bundle = path.resolve(import.meta.dirname, "../../../models/default");

describe("letter-run caps", () => {
  it("longest run of each character", () => {
    expect(Object.fromEntries(longestRuns("fleet access -- aaa a"))).toEqual({ f: 1, l: 1, e: 2, t: 1, " ": 1, a: 3, c: 2, s: 2, "-": 2 });
    expect(longestRuns("").size).toBe(0);
  });

  it("caps ASCII letters at the recogniser's longest run, unseen ones at 2; other characters are free", async () => {
    const tok = await Tokenizer.load(path.join(bundle, "tokenizer.json"));
    const caps = letterRunCaps("Technically, fleet permission", tok);
    const cap = (c: string) => caps.get(tok.tokenId(c)!);
    expect([cap("l"), cap("e"), cap("s"), cap("T"), cap("i")]).toEqual([2, 2, 2, 1, 1]);
    expect([cap("z"), cap("Q")]).toEqual([2, 2]); // not in the line
    for (const c of ["#", "-", "=", " ", "0", "ü", "я"]) expect(tok.tokenId(c) === undefined || !caps.has(tok.tokenId(c)!)).toBe(true);
    expect(caps.size).toBe(52);
  });
});

describe("line fallback (a line the decoder did not end within its cap)", () => {
  it("keeps the decoder's separator and block marker, then the recogniser's reading", async () => {
    const { lineFallback } = await import("../../../src/engines/page.js");
    expect(lineFallback("\n\nsavelog [-m Modus] [-] [-] [-] [-] [-", " savelog [-m Modus] [-u Benutzer] ")).toBe(
      "\n\nsavelog [-m Modus] [-u Benutzer]",
    );
    expect(lineFallback("\n\n## Optio Optio Optio", "Optionen")).toBe("\n\n## Optionen");
    expect(lineFallback(" - item item item", "item one")).toBe(" - item one");
    expect(lineFallback(" 12. step step", "step two")).toBe(" 12. step two");
    expect(lineFallback("word word word", "words")).toBe("words");
  });
});
