// The dev/train split of Debian documentation shared by the dev benchmark (bench/real) and the training-corpus
// builder: a document, named "PACKAGE:/path/inside/the/package.pdf", belongs to the dev set when the first
// byte of sha1 of that name is below 26 (about 10 % of documents); the corpus builder excludes exactly those.
import { createHash } from "node:crypto";

export const DEV_BYTE_LIMIT = 26;

/** True when the Debian document `pkg:path` is reserved for the dev benchmark (never for training). */
export function isDevDocument(pkg, path) {
  if (typeof pkg !== "string" || !pkg || typeof path !== "string" || !path.startsWith("/")) {
    throw new TypeError(
      `isDevDocument(pkg, path): a package name and an absolute path inside it, got ${JSON.stringify(pkg)}, ${JSON.stringify(path)}`,
    );
  }
  return createHash("sha1").update(`${pkg}:${path}`, "utf8").digest()[0] < DEV_BYTE_LIMIT;
}
