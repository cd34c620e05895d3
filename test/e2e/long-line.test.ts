// A line of small type across a page, longer than the decoder's view of a line (the projector's 128 slots), read by
// the real default model end to end: the decoder reads it in parts (src/vision/lines.ts lineParts), so it writes the
// whole line from its own reading. Before, the decoder saw the first 128 slots only and wrote words of its own for
// the rest ("the hours of surs of the st"); the merge put the recogniser's letters back here, where they are sure
// and in its alphabet, but not in Cyrillic, whose letters it reads as look-alikes (an 8-point Russian page of the
// language probe: 345 -> 323 errors).
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ocr } from "../helpers/cli.js";
import { makePdf } from "../helpers/pdf.js";
import { repoRoot, tempDir } from "../helpers/paths.js";

/** 165 characters in Helvetica 7 across a letter-size page (the recogniser reads 166 slots). */
const LINE =
  "Every table of the annual survey lists the station, the month, the mean temperature, the rainfall in millimetres and the hours of sunshine, closing with wind speeds.";

function page(): Buffer {
  let ops = "BT /F1 14 Tf 36 720 Td (Weather records) Tj ET\n";
  ops += `BT /F1 7 Tf 36 690 Td (${LINE}) Tj ET\n`;
  ops += "BT /F1 10 Tf 36 660 Td (The records were taken at noon each day.) Tj ET\n";
  return makePdf({ content: ops, text: "" });
}

describe("a line longer than the decoder's view of one, with the default model", () => {
  const temp = tempDir("ocr-long-line-");
  afterAll(() => temp.cleanup());

  it("is read whole by the decoder, in parts, and written as one line", async () => {
    const file = path.join(temp.dir, "long.pdf");
    await writeFile(file, page());
    const trace = path.join(temp.dir, "trace.jsonl");
    const r = await ocr(["parse", file, "--stdout", "--threads", "1", "-q"], { cwd: repoRoot, env: { OCR_FAITHFUL_TRACE: trace } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(LINE);
    // the trace holds each line's evidence and the decoder's own Markdown, a record per part
    const records = (await readFile(trace, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { line: number; text: string; decoded: string });
    const long = records.filter((x) => x.text.includes("survey") || x.text.includes("sunshine"));
    expect(long.length).toBeGreaterThanOrEqual(2);
    expect(new Set(long.map((x) => x.line)).size).toBe(1);
    expect(long.every((x) => Array.from(x.text).length <= 128)).toBe(true);
    const decoded = long.map((x) => x.decoded).join(" ");
    expect(decoded).toContain("closing with wind speeds.");
  });
});
