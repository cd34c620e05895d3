// The "model" engine's registration until the OCR engine is wired in: finds the bundle, then fails honestly.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { registerDecoder } from "../decoder.js";
import { EnvironmentError } from "../errors.js";
import type { RunSettings } from "../settings.js";

/** The package's own models/default folder (next to dist/ and src/). */
export function defaultModelDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../models/default");
}

/** Bundle folder a run uses: --model / OCR_MODEL, else the embedded default. */
export function modelDirFor(settings: RunSettings): string {
  return path.resolve(settings.model.dir ?? defaultModelDir());
}

registerDecoder({
  name: "model",
  description: "the OCR model (vision encoder + native decoder)",
  async create(settings) {
    const dir = modelDirFor(settings);
    const manifest = path.join(dir, "model.json");
    if (!existsSync(manifest)) {
      throw new EnvironmentError(
        `no model installed: ${manifest} not found (pass --model DIR with a model bundle, or use --engine text for PDFs with a text layer)`,
      );
    }
    // The bundle exists but this build has no engine to run it; say so rather than pretend.
    throw new EnvironmentError(
      `the model engine is not part of this build yet, so ${dir} cannot be run (use --engine text for PDFs with a text layer)`,
    );
  },
});
