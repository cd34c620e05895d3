// Letter-run caps of line views (from the recogniser's reading of the line to the engine's maxRun), and the fallback to that reading.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { letterRunCaps, longestRuns, scriptBan, scriptTokens } from "../../../src/engines/model/letter-runs.js";
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

describe("script tokens (what a line's script ban passes to the engine)", () => {
  it("every token with a letter of the script, and no markup or other token", async () => {
    const tok = await Tokenizer.load(path.join(bundle, "tokenizer.json"));
    const text = (ids: number[]) => ids.map((id) => tok.decode([id])).join("");
    const latin = text(scriptTokens(tok, "latin"));
    const cyrillic = text(scriptTokens(tok, "cyrillic"));
    for (const c of ["a", "Z", "é", "ß", "Œ"]) expect(latin).toContain(c);
    for (const c of ["я", "Ж", "ґ", "Є", "ї", "ђ", "Ј", "љ", "њ", "ћ", "Џ"]) expect(cyrillic).toContain(c);
    expect(/[^\p{L}]/u.test(latin + cyrillic)).toBe(false);
    expect(/[\u0400-\u04ff]/.test(latin) || /[a-zA-Z]/.test(cyrillic)).toBe(false);
    // the table tags and special tokens have Latin letters but are markup
    for (const t of ["<table>", "</td>", "<PAGE>"]) expect(scriptTokens(tok, "latin")).not.toContain(tok.tokenId(t));
    expect(scriptTokens(tok, "latin").length).toBe(103);
    expect(scriptTokens(tok, "cyrillic").length).toBe(88); // Russian and Ukrainian (76) and Serbian's 12
  });

  it("a line's ban adds the backtick where the recogniser read none (no code fence opened in its place)", async () => {
    const tok = await Tokenizer.load(path.join(bundle, "tokenizer.json"));
    const tick = tok.tokenId("`")!;
    expect(scriptBan(tok, "latin", "ICHyE KinbKa")).toEqual([...scriptTokens(tok, "latin"), tick]);
    expect(scriptBan(tok, "latin", "`KapTy`")).toEqual(scriptTokens(tok, "latin"));
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
