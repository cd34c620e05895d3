// A table of contents read by the real default model end to end: its dot leaders, which PP-OCR's detector does not box
// (so neither reader sees them), come out after their entries as the page shows them (src/vision/leaders.ts). Before,
// every entry lost its leader (a Ukrainian manual's contents page of the dev benchmark: 687 errors, 36 with them).
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ocr } from "../helpers/cli.js";
import { makePdf } from "../helpers/pdf.js";
import { repoRoot, tempDir } from "../helpers/paths.js";

/** Helvetica's advance widths (thousandths of an em) of the characters the entries use. */
const WIDTH: Record<string, number> = { " ": 278, ".": 278, "1": 556, "2": 556, "3": 556, I: 667, O: 778, W: 944 };
for (const c of "abdeghnopqu") WIDTH[c] = 556;
for (const c of "cksvxyz") WIDTH[c] = 500;
for (const c of "ftr") WIDTH[c] = c === "r" ? 333 : 278;
for (const c of "ijl") WIDTH[c] = 222;

/** Entries and their page numbers. */
const ENTRIES: [string, number][] = [
  ["2.1 Installing the package", 3],
  ["2.2 Where to find the sources", 5],
  ["2.3 Options", 12],
];
const SIZE = 11;
const LEFT = 72;
const NUMBER_X = 528;
/** A leader's dots every PITCH pt from GAP pt after its entry to END pt before the number, as LaTeX's contents lines
 * set them (the number right-aligned in a box 1.55 em wide after the leader). */
const PITCH = 5;
const GAP = 6;
const END = 14;

/** Where an entry's leader's dots stand (pt). */
function dotsOf(entry: string): number[] {
  const end = LEFT + (SIZE * [...entry].reduce((w, c) => w + WIDTH[c]!, 0)) / 1000;
  const xs: number[] = [];
  for (let x = end + GAP; x <= NUMBER_X - END; x += PITCH) xs.push(x);
  return xs;
}

/** A letter-size page: a heading, then each entry in Helvetica 11, its leader's dots and its number at the right. */
function contents(): Buffer {
  let ops = "BT /F1 16 Tf 72 700 Td (Contents) Tj ET\n";
  ENTRIES.forEach(([entry, number], k) => {
    const y = 660 - 20 * k;
    ops += `BT /F1 ${SIZE} Tf ${LEFT} ${y} Td (${entry}) Tj ET\n`;
    for (const x of dotsOf(entry)) ops += `BT /F1 ${SIZE} Tf ${x.toFixed(2)} ${y} Td (.) Tj ET\n`;
    ops += `BT /F1 ${SIZE} Tf ${NUMBER_X} ${y} Td (${number}) Tj ET\n`;
  });
  // (prose under the contents: a lone number at the foot of the text would be the page's own number)
  ops += "BT /F1 11 Tf 72 560 Td (This manual documents version 1.2 of the package and its options.) Tj ET\n";
  return makePdf({ content: ops, text: "" });
}

describe("a table of contents, with the default model", () => {
  const temp = tempDir("ocr-leaders-");
  afterAll(() => temp.cleanup());

  it("writes each entry's dot leader, dot for dot, between the entry and its page number", async () => {
    const file = path.join(temp.dir, "contents.pdf");
    await writeFile(file, contents());
    if (process.env.KEEP_PDF) await writeFile(process.env.KEEP_PDF, contents());
    const r = await ocr(["parse", file, "--stdout", "--threads", "2", "-q"], { cwd: repoRoot });
    expect(r.exitCode).toBe(0);
    for (const [entry, number] of ENTRIES) {
      const leader = dotsOf(entry)
        .map(() => ".")
        .join(" ");
      expect(r.stdout).toContain(`${entry} ${leader}`);
      expect(r.stdout).toMatch(new RegExp(`${leader.replace(/\./g, "\\.")}\\s+${number}\\b`));
    }
  });
});
