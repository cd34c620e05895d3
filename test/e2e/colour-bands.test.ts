// A magazine's page of type in colour, read by the real default model end to end: a heading in white on a dark band,
// white type on a red box, dark red type on white. The glyph measures read the recogniser's crop by its first
// channel as dark ink on paper, so on white over red the diacritics model saw carons and cedillas on every t, s and c
// ("Ťičkeťš cošť 12 euroš ať ťhe gaťe", vision/line-crop.ts inkCrop); and the heading's wide type set the digits of
// its year as far apart as a range's dash would ("Festival 2–0–2–6", faithful.ts letterSpacing); and a box the
// detector put on the flat band between two of its words was read as "22" (vision/line-crop.ts flatCrop).
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ocr } from "../helpers/cli.js";
import { makePdf } from "../helpers/pdf.js";
import { repoRoot, tempDir } from "../helpers/paths.js";

const HEADING = "Summer Festival 2026";
const BOX = ["Opening hours from 9:00 to 18:30", "Tickets cost 12 euros at the gate", "Call 0151 234 5678 for the details"];
const RED = ["The stalls sell cakes, toast and tea to visitors", "Its fast service suits the city streets"];

/** A4 in points: a navy band with the heading in white, a red box of white lines, red lines on white. */
function page(): Buffer {
  // (the heading tracked wide: 5 points between its letters; 36-point type at 150 DPI)
  let ops = `0.10 0.14 0.49 rg 40 680 515 90 re f\n1 1 1 rg BT /F1 36 Tf 5 Tc 58 710 Td (${HEADING}) Tj 0 Tc ET\n`;
  ops += "0.78 0.16 0.16 rg 40 480 300 180 re f\n";
  BOX.forEach((line, k) => (ops += `1 1 1 rg BT /F1 14 Tf 56 ${630 - 28 * k} Td (${line}) Tj ET\n`));
  RED.forEach((line, k) => (ops += `0.85 0.1 0.1 rg BT /F1 14 Tf 56 ${420 - 28 * k} Td (${line}) Tj ET\n`));
  return makePdf({ content: ops, text: "colour", width: 595, height: 842 });
}

const BOXED = ["Open every day", "from nine to six", "with free entry", "for all children", "under twelve"];
const BESIDE = ["The new gallery", "shows paintings", "by local artists", "and sculptures", "from the coast"];

/** A red box of five short white lines beside five short dark lines on white, on one leading, a wide gap between. */
function sidebar(): Buffer {
  let ops = "0.78 0.16 0.16 rg 40 470 230 200 re f\n";
  BOXED.forEach((line, k) => (ops += `1 1 1 rg BT /F1 14 Tf 56 ${640 - 28 * k} Td (${line}) Tj ET\n`));
  BESIDE.forEach((line, k) => (ops += `0.1 0.1 0.1 rg BT /F1 14 Tf 400 ${640 - 28 * k} Td (${line}) Tj ET\n`));
  return makePdf({ content: ops, text: "sidebar", width: 595, height: 842 });
}

describe("type in colour, with the default model", () => {
  const temp = tempDir("ocr-colour-");
  afterAll(() => temp.cleanup());

  it("reads white type on colour and red type on white with no invented marks, a heading's year digit for digit", async () => {
    const file = path.join(temp.dir, "colour.pdf");
    await writeFile(file, page());
    const r = await ocr(["parse", file, "--stdout", "--threads", "1", "-q"], { cwd: repoRoot });
    expect(r.exitCode).toBe(0);
    const text = r.stdout.replace(/[#*`]/g, "").replace(/\s+/g, " ");
    expect(text).toContain("2026");
    // every letter as printed: no letter of the page gains a mark (each line's words, in order)
    expect(text).not.toMatch(/[^ -~]/);
    for (const line of [HEADING, ...BOX, ...RED]) expect(text).toContain(line);
    // and nothing else: not the "2" the recogniser guessed in a box the detector put on the band between two words
    const letters = (s: string) => s.replace(/\s/g, "").length;
    expect(letters(text)).toBe(letters([HEADING, ...BOX, ...RED].join("")));
  });

  it("reads a coloured box's lines together, not row by row with the column beside it", async () => {
    const file = path.join(temp.dir, "sidebar.pdf");
    await writeFile(file, sidebar());
    const r = await ocr(["parse", file, "--stdout", "--threads", "1", "-q"], { cwd: repoRoot });
    expect(r.exitCode).toBe(0);
    // (the two columns alike on white read as a table's, row by row: "Open every day The new gallery from nine…")
    const text = r.stdout.replace(/[#*`]/g, "").replace(/\s+/g, " ").trim();
    expect(text).toBe([...BOXED, ...BESIDE].join(" "));
  });
});
