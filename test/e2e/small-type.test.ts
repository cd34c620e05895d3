// A page of type too small for the detector at its usual scale (5.5-point Helvetica at 150 DPI: the detector sees
// the page at 960 px, its x-height at 3-4 pixels), read by the real default model end to end. The detector lost
// stretches of its lines there and boxed the rest in fragments ("Chap apter 12: Weather records of the stat ations",
// then tables of word pieces); glyphs left outside every box make the page be detected again at its own pixels
// (src/vision/lines.ts withMissedText), and every line is read whole.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { editDistance } from "../../scripts/cer.mjs";
import { ocr } from "../helpers/cli.js";
import { makePdf } from "../helpers/pdf.js";
import { repoRoot, tempDir } from "../helpers/paths.js";

const HEADER = "Chapter 12: Weather records of the stations, their months and the annual survey of the region";
const WORDS =
  "the station records each month the mean temperature and rainfall in millimetres with the hours of sunshine and wind speeds taken at noon every day by the observers who keep the annual survey of the weather across the region".split(
    " ",
  );

/** A running header over a rule and 40 lines of 150 characters, in Helvetica 5.5 on 6.5 points of leading. */
function page(): { pdf: Buffer; lines: string[] } {
  let ops = `BT /F1 5.5 Tf 36 750 Td (${HEADER}) Tj ET\n0.5 w 36 746 m 576 746 l S\n`;
  const lines: string[] = [];
  for (let l = 0, k = 0, y = 720; l < 40; l++, y -= 6.5) {
    let line = "";
    while (line.length < 150) line += `${WORDS[k++ % WORDS.length]} `;
    lines.push(line.trim());
    ops += `BT /F1 5.5 Tf 36 ${y} Td (${line.trim()}) Tj ET\n`;
  }
  return { pdf: makePdf({ content: ops, text: "" }), lines };
}

describe("a page of small type, with the default model", () => {
  const temp = tempDir("ocr-small-type-");
  afterAll(() => temp.cleanup());

  it("is detected again at its own pixels where the detector missed text, and read whole", async () => {
    const { pdf, lines } = page();
    const file = path.join(temp.dir, "small.pdf");
    await writeFile(file, pdf);
    const r = await ocr(["parse", file, "--stdout", "--keep-headers", "--threads", "1", "-q"], { cwd: repoRoot });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(HEADER);
    // the body's text, all of it, as one paragraph: under 1 % of its characters wrong (at the detector's usual scale
    // alone: 59 %, the header lost)
    const body = r.stdout
      .slice(r.stdout.indexOf(HEADER) + HEADER.length)
      .replace(/\s+/g, " ")
      .trim();
    const truth = lines.join(" ");
    expect(editDistance(body, truth) / truth.length).toBeLessThan(0.01);
  });
});
