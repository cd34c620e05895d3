// --fixations records read back for `ocr render --fixations`, and the overlay drawn from them.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fixationOverlay, readFixations, type FixationRecord } from "../../../src/engines/model/fixations.js";
import { tempDir } from "../../helpers/paths.js";

const tmp = tempDir("ocr-fixations-");
afterAll(() => tmp.cleanup());

const rec = (over: Partial<FixationRecord>): FixationRecord => ({
  source: "docs/a.pdf",
  page: 1,
  step: 0,
  position: 40,
  cells: [[0, 1]],
  points: [[0.5, 0.25]],
  pageSize: [200, 100],
  line: { index: 0, box: [20, 20, 120, 30] },
  ...over,
});

function file(name: string, lines: unknown[]): string {
  const f = path.join(tmp.dir, name);
  writeFileSync(f, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n");
  return f;
}

describe("readFixations", () => {
  it("keeps the document's records, matched by resolved path or else by file name", async () => {
    const f = file("f.jsonl", [rec({}), rec({ source: "other.pdf" }), rec({ page: 2 })]);
    expect(await readFixations(f, "docs/a.pdf")).toHaveLength(2);
    expect(await readFixations(f, "/elsewhere/a.pdf")).toHaveLength(2);
  });

  it("names what is wrong: missing file, bad line, no records for the document, no positions", async () => {
    await expect(readFixations(path.join(tmp.dir, "none.jsonl"), "a.pdf")).rejects.toThrow(/no such file/);
    await expect(readFixations(file("bad.jsonl", [rec({}), "{oops"]), "a.pdf")).rejects.toThrow(/line 2 is not JSON/);
    await expect(readFixations(file("other.jsonl", [rec({ source: "b.pdf" })]), "a.pdf")).rejects.toThrow(
      /no records for a\.pdf \(it covers b\.pdf\)/,
    );
    await expect(readFixations(file("old.jsonl", [rec({ points: undefined })]), "docs/a.pdf")).rejects.toThrow(/no page positions/);
  });
});

describe("fixationOverlay", () => {
  it("outlines each line (scaled from the parse run's page size) and draws a dot per kept position, darker when kept more often", () => {
    const svg = fixationOverlay([rec({}), rec({ step: 1 }), rec({ step: 2, points: [[0.75, 0.25]] })], 400, 200);
    expect(svg).toMatch(/^<svg [^>]*width="400" height="200">/);
    // the line box [20,20,120,30] of a 200x100 page, drawn on a 400x200 rendering
    expect(svg).toContain('<rect x="40" y="40" width="200" height="20"');
    const dots = [...svg.matchAll(/<circle cx="(\d+)" cy="(\d+)" r="\d+" fill="#e5534b" fill-opacity="([\d.]+)"/g)];
    expect(dots.map((d) => [Number(d[1]), Number(d[2])])).toEqual([
      [200, 50],
      [300, 50],
    ]);
    expect(Number(dots[0]![3])).toBe(1);
    expect(Number(dots[1]![3])).toBeCloseTo(0.25 + 0.75 / 2, 3);
  });
});
