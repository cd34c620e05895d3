// Shared test paths and temp-folder helpers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const fixtures = path.join(repoRoot, "fixtures/docs");
export const fixture = (name: string) => path.join(fixtures, name);

/** A fresh temp folder; call the returned cleanup in afterEach/afterAll. */
export function tempDir(prefix = "ocr-test-"): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
