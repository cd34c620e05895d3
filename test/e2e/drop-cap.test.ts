// Drop caps, read by the real default model end to end: a paragraph's first letter set three lines deep (a
// magazine's, a book chapter's opening), its first lines set in beside it. The detector boxed the lines and left the
// letter, so the page read "he council voted…"; or it boxed the letter alone, which the decoder wrote as a heading of
// its own ("# W") before the paragraph's lines in another order (vision/drop-caps.ts: the letter is set again at the
// start of its line). A step's number set large beside its text is found alike and read before its first line.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ocr } from "../helpers/cli.js";
import { makePdf } from "../helpers/pdf.js";
import { tempDir } from "../helpers/paths.js";

const WORDS =
  "the council voted on tuesday to extend the riverside path by two miles linking the old mill with the new housing estate and the station".split(
    " ",
  );
/** Each paragraph's drop cap, the rest of its first line, and Helvetica's advance of the letter (in ems). */
const OPENINGS: [string, string, number][] = [
  ["T", "he market opened early on the first day of spring", 0.611],
  ["W", "ater levels rose again after the storm last week", 0.944],
];

/** A4 in points: two paragraphs of 12-point type on a 15-point pitch, each opening with a drop cap three lines deep. */
function page(): Buffer {
  let ops = "";
  let top = 760;
  for (const [letter, rest, advance] of OPENINGS) {
    // the cap stands from the third line's baseline to the first line's capitals: 2 pitches and a capital (0.72 em)
    const size = (2 * 15 + 0.72 * 12) / 0.72;
    ops += `BT /F1 ${size.toFixed(1)} Tf 60 ${top - 30} Td (${letter}) Tj ET\n`;
    const indent = 60 + advance * size + 4;
    for (let l = 0; l < 8; l++) {
      const words = Array.from({ length: 9 }, (_, k) => WORDS[(l * 7 + k * 3) % WORDS.length]).join(" ");
      const text = l === 0 ? rest : words;
      ops += `BT /F1 12 Tf ${l < 3 ? indent.toFixed(1) : 60} ${top - 15 * l} Td (${text}) Tj ET\n`;
    }
    top -= 15 * 10;
  }
  return makePdf({ content: ops, text: "drop caps", width: 595, height: 842 });
}

const STEPS = ["Mix the flour and the sugar in a bowl", "Bake it for twenty minutes at low heat"];

/** A4 in points: two steps of two 12-point lines, each step's number set large (two lines deep) beside it. */
function steps(): Buffer {
  let ops = "";
  STEPS.forEach((first, k) => {
    const top = 760 - 60 * k;
    const size = (15 + 0.72 * 12) / 0.72;
    ops += `BT /F1 ${size.toFixed(1)} Tf 60 ${top - 15} Td (${k + 1}) Tj ET\n`;
    ops += `BT /F1 12 Tf 90 ${top} Td (${first}) Tj ET\n`;
    ops += `BT /F1 12 Tf 90 ${top - 15} Td (then stir it well and set it aside) Tj ET\n`;
  });
  ops += "BT /F1 12 Tf 60 600 Td (Serve the cake when it is cold with tea or coffee) Tj ET\n";
  return makePdf({ content: ops, text: "steps", width: 595, height: 842 });
}

describe("drop caps, with the default model", () => {
  const temp = tempDir("ocr-drop-cap-");
  afterAll(() => temp.cleanup());

  it("reads each paragraph's first word whole, the letter at the start of its line", async () => {
    await writeFile(path.join(temp.dir, "caps.pdf"), page());
    const r = await ocr(["parse", "caps.pdf", "-o", "out", "--format", "md", "--threads", "1", "-q"], { cwd: temp.dir });
    expect(r.exitCode).toBe(0);
    const md = await readFile(path.join(temp.dir, "out", "caps.md"), "utf8");
    for (const [letter, rest] of OPENINGS) expect(md).toContain(`${letter}${rest.split(" ").slice(0, 4).join(" ")}`);
    // (the letter is no heading of its own)
    expect(md).not.toMatch(/^#+\s*\S\s*$/m);
  });

  it("reads a step's number set large beside it before the step's first line", async () => {
    await writeFile(path.join(temp.dir, "steps.pdf"), steps());
    const r = await ocr(["parse", "steps.pdf", "-o", "out", "--format", "md", "--threads", "1", "-q"], { cwd: temp.dir });
    expect(r.exitCode).toBe(0);
    const md = await readFile(path.join(temp.dir, "out", "steps.md"), "utf8");
    STEPS.forEach((first, k) => expect(md).toContain(`${k + 1} ${first}`));
  });
});
