// Where the model engine looks for its bundle: --model / OCR_MODEL, else the package's models/default.
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { RunSettings } from "../settings.js";

/** The package's own models/default folder (next to dist/ and src/). */
export function defaultModelDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../models/default");
}

/** Bundle folder a run uses when --model names a folder: that folder, else the embedded default. */
export function modelDirFor(settings: RunSettings): string {
  return path.resolve(settings.model.dir ?? defaultModelDir());
}
