// Which Debian documentation packages the corpus may use, and the split of their documents.
// Shared by fetch.mjs and build.mjs (and test/corpus); no I/O here.
import { createHash } from "node:crypto";

/**
 * Reserved for independent evaluation: never downloaded, trained on or tuned on. The builder refuses them
 * whatever the command line says (test/corpus/packages.test.ts).
 */
export const DENY = Object.freeze(["r-doc-pdf", "texlive-latex-base-doc", "texlive-lang-german", "texlive-lang-cyrillic"]);

/**
 * Documents of allowed packages that are nevertheless dev-set documents: the Debian pages in
 * /work/shared/data/real (python/ocr_tools/train/evaluate.py's "real Debian prose", bench/real's la-lshort-es), named there
 * PKG--BASENAME.pdf. Their whole directory is excluded, so no other paper size or build of the same text trains.
 */
export const RESERVED_DIRECTORIES = Object.freeze([
  "texlive-lang-spanish:/usr/share/doc/texlive-doc/latex/lshort-spanish/",
  "texlive-lang-chinese:/usr/share/doc/texlive-doc/latex/lshort-chinese/",
]);

/** Documentation packages with many born-digital PDFs (checked with apt-cache on 2026-12-01). */
export const DEFAULT_PACKAGES = Object.freeze([
  "texlive-lang-italian",
  "texlive-lang-polish",
  "texlive-lang-czechslovak",
  "texlive-lang-spanish",
  "texlive-lang-portuguese",
  "texlive-lang-european",
  "texlive-humanities-doc",
  "texlive-latex-recommended-doc",
  "texlive-science-doc",
  "texlive-lang-french",
  "texlive-publishers-doc",
  "texlive-pictures-doc",
  "texlive-latex-extra-doc",
]);

/** Throws when `pkg` is reserved for evaluation (any architecture or version suffix included). */
export function assertAllowed(pkg) {
  const name = String(pkg)
    .trim()
    .toLowerCase()
    .replace(/[:_=].*$/, "");
  if (DENY.includes(name)) throw new Error(`${pkg}: reserved for independent evaluation, never used for the corpus`);
  return name;
}

/** The document's key, "PKG:/PATH" (the absolute path inside the package, as the file would be installed). */
export function docKey(pkg, pathInPackage) {
  return `${pkg}:/${String(pathInPackage).replace(/^\/+/, "")}`;
}

/**
 * The dev benchmark's documents: the first byte of sha1("PKG:/PATH") is below 26 (about 10 %). The same rule as
 * bench/real/split.mjs's isDevDocument(pkg, path) (branch bench-real); those documents are never training data.
 */
export function isBenchDocument(key) {
  return createHash("sha1").update(key, "utf8").digest()[0] < 26;
}

/**
 * "bench" for dev documents (isBenchDocument, RESERVED_DIRECTORIES), else "val" (the first sha1 byte of "val:" + key
 * below 26, ~10 %) or "train": by document.
 */
export function splitOf(key) {
  if (isBenchDocument(key) || RESERVED_DIRECTORIES.some((d) => key.startsWith(d))) return "bench";
  return createHash("sha1")
    .update("val:" + key, "utf8")
    .digest()[0] < 26
    ? "val"
    : "train";
}
