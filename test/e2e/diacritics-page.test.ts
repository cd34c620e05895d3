// A German and a Czech page (fixtures/docs/german_page.png, diacritics_page.png: four lines each set in Latin Modern
// at 22 px, written for these tests) read by the real default model end to end. On the German page the recogniser
// reads ü as a sure "i" and ß as "f": the merge keeps the decoder's letters there (faithful.ts MISREADS). Neither
// the recogniser nor the decoder can write the Czech page's č, ř, ě, ž, š: they come from the diacritics model
// (src/vision/diacritics.ts); the same bundle without it reads them bare.
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ocr } from "../helpers/cli.js";
import { repoRoot } from "../helpers/paths.js";

const page = path.join(repoRoot, "fixtures/docs/diacritics_page.png");
const parse = async (...extra: string[]) => {
  const r = await ocr(["parse", page, "--stdout", "--threads", "2", "-q", ...extra], { cwd: repoRoot });
  expect(r.exitCode).toBe(0);
  return r.stdout;
};

describe("a German page with the default model (fixtures/docs/german_page.png, written for this test)", () => {
  it("keeps the decoder's umlauts, ß and „ over the recogniser's sure i, f and comma, and reads a capital's umlaut", async () => {
    const r = await ocr(["parse", path.join(repoRoot, "fixtures/docs/german_page.png"), "--stdout", "--threads", "2", "-q"], {
      cwd: repoRoot,
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Die Größe der Schriftart lässt sich für jedes Dokument");
    expect(r.stdout).toContain("häufig besser als viele Sonderfälle; außerdem müssen");
    expect(r.stdout).toContain("gut begründet sein.");
    expect(r.stdout).toContain("„");
    // a capital's umlaut, which the decoder reads bare, comes from the diacritics model on a page showing umlauts
    expect(r.stdout).toContain("außerdem müssen Änderungen an Maßen");
  });
});

describe("a Czech page with the default model", () => {
  let bare: string | undefined;
  afterAll(async () => {
    if (bare) await rm(bare, { recursive: true, force: true });
  });

  it("writes the letters beyond the recogniser's and the decoder's alphabets", async () => {
    const text = await parse();
    expect(text).toContain("třpytila a děti běžely přes most k nádraží, kde čekal");
    for (const word of [
      "Příliš",
      "kůň",
      "úpěl",
      "ďábelské",
      "Večer",
      "řeka",
      "přišla",
      "pozdě,",
      "protože",
      "klíče",
      "kanceláře",
      "tužek.",
    ])
      expect(text).toContain(word);
  });

  it("reads them bare without the diacritics model", async () => {
    bare = await mkdtemp(path.join(os.tmpdir(), "ocr-bare-"));
    await cp(path.join(repoRoot, "models/default"), bare, { recursive: true });
    const json = JSON.parse(await readFile(path.join(bare, "model.json"), "utf8"));
    delete json.vision.lines.diacritics;
    await writeFile(path.join(bare, "model.json"), JSON.stringify(json));
    const text = await parse("--model", bare);
    expect(text).not.toMatch(/[čřěžš]/);
    expect(text).toContain("most k nádr");
  });
});

describe("a Polish page with the default model (fixtures/docs/polish_page.png: four lines in Latin Modern at 21 px)", () => {
  it("writes ł, whose stroke neither the recogniser nor the decoder reads, at the size of 150-DPI body text", async () => {
    const r = await ocr(["parse", path.join(repoRoot, "fixtures/docs/polish_page.png"), "--stdout", "--threads", "2", "-q"], {
      cwd: repoRoot,
    });
    expect(r.exitCode).toBe(0);
    for (const word of ["Mały", "siedział", "patrzył,", "byłam", "poszłam", "przyszła", "spadły", "człowiek", "własne", "ciepły"])
      expect(r.stdout).toContain(word);
    expect(r.stdout).not.toMatch(/\b(Maly|siedzial|patrzyl|bylam|poszlam|przyszla|spadly|czlowiek|wlasne|cieply)\b/);
  });
});
