// Which Debian packages and documents the corpus may use (scripts/corpus/packages.mjs, fetch.mjs).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain JavaScript module of the corpus scripts
import { assertAllowed, DEFAULT_PACKAGES, DENY, docKey, isBenchDocument, splitOf } from "../../scripts/corpus/packages.mjs";

const RESERVED = ["r-doc-pdf", "texlive-latex-base-doc", "texlive-lang-german", "texlive-lang-cyrillic"];

describe("corpus packages", () => {
  it("refuses every package reserved for evaluation, in any spelling apt accepts", () => {
    expect([...DENY].sort()).toEqual([...RESERVED].sort());
    for (const p of RESERVED) {
      for (const spelled of [p, p.toUpperCase(), `${p}:all`, `${p}=2023.1`, ` ${p} `])
        expect(() => assertAllowed(spelled), spelled).toThrow(/reserved/);
    }
    expect(assertAllowed("texlive-publishers-doc")).toBe("texlive-publishers-doc");
    expect(DEFAULT_PACKAGES.filter((p: string) => RESERVED.includes(p))).toEqual([]);
  });

  it("fetch.mjs stops at a reserved package before downloading anything", () => {
    let err: { status?: number; stderr?: Buffer } = {};
    try {
      execFileSync(
        "node",
        [path.resolve("scripts/corpus/fetch.mjs"), "--out", "/nonexistent/never-written", "texlive-lang-italian", "texlive-lang-german"],
        { stdio: "pipe" },
      );
    } catch (e) {
      err = e as typeof err;
    }
    expect(err.status).not.toBe(0);
    expect(String(err.stderr)).toMatch(/texlive-lang-german: reserved for independent evaluation/);
  });

  it('puts a document in the dev benchmark when the first byte of sha1("PKG:/PATH") is below 26', () => {
    // cross-checked with bench/real/split.mjs isDevDocument (branch bench-real) on 924 documents: identical
    expect(docKey("texlive-lang-italian", "usr/share/doc/texlive-doc/latex/layaureo/layaureo.pdf")).toBe(
      "texlive-lang-italian:/usr/share/doc/texlive-doc/latex/layaureo/layaureo.pdf",
    );
    expect(docKey("texlive-lang-italian", "/usr/share/doc/a.pdf")).toBe("texlive-lang-italian:/usr/share/doc/a.pdf");
    expect(isBenchDocument("texlive-lang-italian:/usr/share/doc/texlive-doc/latex/layaureo/layaureo.pdf")).toBe(true);
    expect(isBenchDocument("texlive-publishers-doc:/usr/share/doc/texlive-doc/latex/acmart/samples/sample-sigconf.pdf")).toBe(false);
    let bench = 0,
      val = 0;
    for (let i = 0; i < 2000; i++) {
      const key = `texlive-x-doc:/usr/share/doc/d${i}.pdf`;
      const first = createHash("sha1").update(key).digest()[0]!;
      expect(isBenchDocument(key)).toBe(first < 26);
      const split = splitOf(key);
      expect(split === "bench").toBe(first < 26);
      if (split === "bench") bench++;
      if (split === "val") val++;
    }
    // the dev set's Debian pages in /work/shared/data/real (lshort-a4, Spanish) and their directory never train
    expect(splitOf("texlive-lang-spanish:/usr/share/doc/texlive-doc/latex/lshort-spanish/lshort-a4.pdf")).toBe("bench");
    expect(splitOf("texlive-lang-spanish:/usr/share/doc/texlive-doc/latex/lshort-spanish/other.pdf")).toBe("bench");
    // about 10 % each; every page of a document shares its document's split (the split takes no page)
    expect(bench).toBeGreaterThan(150);
    expect(bench).toBeLessThan(250);
    expect(val).toBeGreaterThan(130);
    expect(val).toBeLessThan(230);
    expect(splitOf.length).toBe(1);
  });
});
