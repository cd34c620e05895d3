// A page in a typewriter face (fixtures/docs/typewriter_page.png: five lines in DejaVu Sans Mono at 17 px, written
// for this test) read by the real default model end to end. In such a face a capital C O S V W X Z is its small
// letter set larger, and the recogniser misses their case inside a word ("Coolsoft", "Scrollover"); the glyphs'
// heights in the line's crop tell it (src/vision/letter-case.ts).
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ocr } from "../helpers/cli.js";
import { repoRoot } from "../helpers/paths.js";

describe("a page in a typewriter face with the default model", () => {
  it("writes the case of letters whose capitals differ from them by size alone, inside words", async () => {
    const r = await ocr(["parse", path.join(repoRoot, "fixtures/docs/typewriter_page.png"), "--stdout", "--threads", "2", "-q"], {
      cwd: repoRoot,
    });
    expect(r.exitCode).toBe(0);
    for (const word of ["LibreOffice", "SSH", "CMIS", "Options", "WebDAV", "TextWrap", "CoolSoft", "ScrollOver", "ViewSwitcher"])
      expect(r.stdout).toContain(word);
    expect(r.stdout).not.toMatch(/\b(Libreoffice|Coolsoft|Scrollover|Viewswitcher)\b/);
  });
});
