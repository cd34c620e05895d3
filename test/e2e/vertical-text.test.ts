// Text set vertically, read by the real default model end to end: a document number stamped down a form's right
// margin (as on every page of the tobacco archive's forms in the dev benchmark) and a label running up the left
// one, beside ordinary lines. PP-OCR's detector finds such a line as one box per glyph or as one tall box; before
// src/vision/vertical.ts the number came out as one-letter lines of nonsense ("lö", "S", "{" for "82250337").
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ocr } from "../helpers/cli.js";
import { makePdf } from "../helpers/pdf.js";
import { repoRoot, tempDir } from "../helpers/paths.js";

const BODY = [
  "Competitive product introduction: a progress report for the third quarter.",
  "The sales force has been busy promoting the old style packs to clean up inventory.",
  "All accounts have the new packaging, and it was not a problem obtaining distribution.",
  "This has not been a problem. New packaging is just following up on the old one.",
  "Very well received. The old packs are being consolidated and promoted in select stores.",
];

/** A letter-size page of BODY in Helvetica, with `extra` content (PDF operators) drawn after it. */
function page(extra: string): Buffer {
  const lines = BODY.map((line, k) => `BT /F1 11 Tf 72 ${700 - 18 * k} Td (${line}) Tj ET\n`).join("");
  return makePdf({ content: lines + extra, text: extra });
}

describe("text set vertically, with the default model", () => {
  const temp = tempDir("ocr-vertical-");
  afterAll(() => temp.cleanup());
  const parse = async (name: string, extra: string) => {
    const file = path.join(temp.dir, name);
    await writeFile(file, page(extra));
    const r = await ocr(["parse", file, "--stdout", "--threads", "2", "-q"], { cwd: repoRoot });
    expect(r.exitCode).toBe(0);
    return r.stdout;
  };

  it("reads a number running down the right margin and a label running up the left one", async () => {
    // text matrices turning the baseline down the page (glyph tops to the right) and up it (tops to the left)
    const out = await parse(
      "margins.pdf",
      "BT /F1 12 Tf 0 -1 1 0 565 420 Tm (82250337) Tj ET\nBT /F1 12 Tf 0 1 -1 0 40 300 Tm (TOBACCO 4417) Tj ET\n",
    );
    expect(out).toContain("82250337");
    expect(out).toContain("TOBACCO 4417");
    // as text, not as headings (laid out upright, a stamp is taller than the body's lines and stands alone)
    expect(out).not.toMatch(/^#+ .*(82250337|TOBACCO)/m);
    // and the horizontal lines as before
    expect(out).toContain(BODY[1]);
  });
});
