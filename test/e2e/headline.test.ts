// A headline over three columns of small type, read by the real default model end to end. PP-OCR's detector sees an
// A4 page at 960 px on its long side; there it lost a 36-point headline whole (31-point: "pv - the river", 26-point:
// "path by the river") though it boxed the same headline at other scales, or its strip alone at this one. Glyphs that
// large outside every box are detected again in their strip (vision/lines.ts withLargeText).
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ocr } from "../helpers/cli.js";
import { makePdf } from "../helpers/pdf.js";
import { tempDir } from "../helpers/paths.js";

const HEADLINE = "A path by the river";
const WORDS =
  "the council voted on tuesday to extend the riverside path by two miles linking the old mill with the new housing estate and the station".split(
    " ",
  );

/** A4 in points: the headline at `size` points, then three columns of 50 lines of 8-point type. */
function page(size: number): Buffer {
  let ops = `BT /F1 ${size} Tf 40 720 Td (${HEADLINE}) Tj ET\n`;
  for (let c = 0; c < 3; c++)
    for (let l = 0; l < 50; l++) {
      const line = Array.from({ length: 6 }, (_, k) => WORDS[(l * 7 + k * 3 + c * 5) % WORDS.length]).join(" ");
      ops += `BT /F1 8 Tf ${40 + c * 180} ${650 - l * 11} Td (${line}) Tj ET\n`;
    }
  return makePdf({ content: ops, text: `headline ${size}`, width: 595, height: 842 });
}

describe("a headline over small type, with the default model", () => {
  const temp = tempDir("ocr-headline-");
  afterAll(() => temp.cleanup());

  it("reads headlines of 26 to 36 points whole, first of the page and a paragraph of their own", async () => {
    const sizes = [26, 31, 36];
    for (const size of sizes) await writeFile(path.join(temp.dir, `headline-${size}.pdf`), page(size));
    // (run in the folder, so that the outputs are out/NAME.md)
    const names = sizes.map((size) => `headline-${size}.pdf`);
    const r = await ocr(["parse", ...names, "-o", "out", "--format", "md", "--threads", "1", "-q"], { cwd: temp.dir });
    expect(r.exitCode).toBe(0);
    for (const size of sizes) {
      const md = await readFile(path.join(temp.dir, "out", `headline-${size}.md`), "utf8");
      // a paragraph of its own (the decoder began the first column's first line as a heading in lower case, which
      // went on from the headline: "A path by the river the on extend")
      expect(md.replace(/^[#\s]+/, "").startsWith(`${HEADLINE}\n\n`)).toBe(true);
    }
  });
});
