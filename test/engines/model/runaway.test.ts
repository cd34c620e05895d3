// The runaway rule: near-loops end a page, real text (tables included) never does.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RunawayDetector } from "../../../src/engines/model/runaway.js";
import { repoRoot } from "../../helpers/paths.js";

const feed = (ids: number[]) => {
  const d = new RunawayDetector();
  return ids.findIndex((t) => d.push(t));
};
const chars = (s: string) => [...s].map((c) => c.codePointAt(0)!);

describe("RunawayDetector", () => {
  it("fires on runs of spaces with a few letters, the loop a weak model falls into", () => {
    const loop = chars(("e" + " ".repeat(35) + "s" + " ".repeat(35) + "a" + " ".repeat(35)).repeat(6));
    const at = feed(loop);
    expect(at).toBeGreaterThanOrEqual(255);
    expect(at).toBeLessThan(300);
  });

  it("fires on a short phrase repeated with small variations", () => {
    const text = Array.from({ length: 40 }, (_, i) => `the value ${i % 3} `).join("");
    expect(feed(chars(text))).toBeGreaterThan(0);
  });

  it("never fires on real page text, tables included", () => {
    for (const f of ["synth-1page.p1.md", "synth-2pages.p1.md"]) {
      expect(feed(chars(readFileSync(path.join(repoRoot, "test/e2e/fixtures", f), "utf8")))).toBe(-1);
    }
  });
});
