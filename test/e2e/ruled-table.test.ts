// A ruled table whose descriptions wrap over two or three lines beside one-line commands and their syntax, read by
// the real default model end to end from a PDF's pixels: the rules between its rows make it read row by row
// (src/layout/rules.ts, xyCut's `rules`) and rebuild it with a row per band between them (table-geometry.ts). Before
// them such a table (mt-luamaths-p2 of the dev benchmark) was read column by column, every command and then every
// description, and a table the decoder wrote of it had a row per line.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ocr } from "../helpers/cli.js";
import { makePdf } from "../helpers/pdf.js";
import { repoRoot, tempDir } from "../helpers/paths.js";

const ROWS: [string, string, string[]][] = [
  ["Absolute", "abs(x)", ["Gives the absolute value of a real", "number, whatever its sign."]],
  ["Cosine", "cos(x)", ["Gives the cosine of a real number", "given in radians, between minus", "one and one."]],
  ["Exponent", "exp(x)", ["Calculates the power of the Euler", "number to the given value."]],
  ["Floor", "floor(x)", ["Gives the largest whole number", "less than or equal to a number."]],
  ["Round", "round(x, n)", ["Rounds a real number off to the", "number of digits it is given."]],
  ["Sine", "sin(x)", ["Gives the sine of a real number", "given in radians."]],
];

/** The table in Helvetica 10 pt on 12 pt leading, 3 pt above and below each row, a rule above it and under each row;
 * a command and its syntax level with the middle of its description. */
function table(): Buffer {
  let content = "0.5 w\n";
  let top = 700;
  const rule = (y: number) => (content += `72 ${y} m 540 ${y} l S\n`);
  rule(top);
  for (const [name, syntax, lines] of ROWS) {
    const height = 12 * (lines.length - 1) + 10 + 2 * 3;
    const middle = top - height / 2 - 3.5;
    content += `BT /F1 10 Tf 80 ${middle} Td (${name}) Tj ET\nBT /F1 10 Tf 170 ${middle} Td (${syntax}) Tj ET\n`;
    lines.forEach((line, k) => (content += `BT /F1 10 Tf 330 ${top - 3 - 8 - 12 * k} Td (${line}) Tj ET\n`));
    top -= height;
    rule(top);
  }
  return makePdf({ content, text: "ruled table" });
}

describe("a ruled table whose cells wrap, with the default model", () => {
  const temp = tempDir("ocr-ruled-");
  afterAll(() => temp.cleanup());

  it("is read row by row, a row's command, its syntax and its description's lines, and written a row per band", async () => {
    const file = path.join(temp.dir, "table.pdf");
    const trace = path.join(temp.dir, "trace.jsonl");
    await writeFile(file, table());
    // the lines in the order the decoder reads them (the merge's trace, one record a line)
    const r = await ocr(["parse", file, "--stdout", "--threads", "2", "-q"], { cwd: repoRoot, env: { OCR_FAITHFUL_TRACE: trace } });
    expect(r.exitCode).toBe(0);
    const read = (await readFile(trace, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { text: string }).text.trim());
    const expected = ROWS.flatMap(([name, syntax, lines]) => [name, syntax, ...lines]);
    // (the recogniser's reading of each line: compared by its first word)
    const first = (t: string) => t.split(/\s+/)[0]!.toLowerCase();
    expect(read.map(first)).toEqual(expected.map(first));
    // and written as one table of a row per row of the page, each description whole in its cell (the rows come
    // from the bands between the rules, not from level lines: a description's lines are not level with its command)
    const rows = [...r.stdout.matchAll(/<tr>(.*?)<\/tr>/g)].map((m) => [...m[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]!));
    expect(rows).toHaveLength(ROWS.length);
    rows.forEach((cells, k) => {
      const [name, , lines] = ROWS[k]!;
      expect(cells).toHaveLength(3);
      expect(cells[0]).toBe(name);
      expect(cells[2]).toContain(lines[0]!.split(" ").slice(0, 2).join(" "));
      expect(cells[2]).toContain(lines.at(-1)!.split(" ").slice(-2).join(" "));
    });
  });
});
