// The README's demo page, read by the real default model end to end: every character as the page shows it.
// Before the decoder's Markdown was merged with the recogniser's sure characters (src/engines/model/faithful.ts) it read
// "Docling bugundles PDF … in an egasy self contained package".
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ocr } from "../helpers/cli.js";
import { repoRoot } from "../helpers/paths.js";

describe("the README's demo page (fixtures/docs/scanned_page.pdf) with the default model", () => {
  it("reads exactly", async () => {
    const r = await ocr(["parse", path.join(repoRoot, "fixtures/docs/scanned_page.pdf"), "--stdout", "--threads", "2", "-q"], {
      cwd: repoRoot,
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe("Docling bundles PDF document conversion to JSON and Markdown in an easy self contained package");
  });
});
