// Where the model engine looks for its bundle: --model / OCR_MODEL, else the package's models/default.
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The package's own models/default folder (next to dist/ and src/). */
export function defaultModelDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../models/default");
}
