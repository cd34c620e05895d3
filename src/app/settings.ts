// Run settings: what the user asked for, normalised once; the subset that shapes results keys --resume.
import { createHash } from "node:crypto";

import type { EngineSettings } from "../engines/settings.js";
import type { OutputFormat } from "../output/paths.js";

/** A run's settings: what its engine is built from (EngineSettings) and what the run itself does with pages. */
export interface RunSettings extends EngineSettings {
  engine: string;
  maxPixels: number;
  /** Canonical page selection text ("all", "1-3,7,10-"). */
  pages: string;
  formats: OutputFormat[];
}

/**
 * The settings that change what a page decodes to, as written into NAME.json.
 * Threads, fixation logging and output formats are left out: they do not change results.
 */
export function resultSettings(settings: RunSettings): Record<string, unknown> {
  const { threads: _threads, fixationsFile: _fixations, ...model } = settings.model;
  const layout = settings.layout && (settings.layout.keepHeaders || settings.layout.tables !== "html") ? { layout: settings.layout } : {};
  return { engine: settings.engine, dpi: settings.dpi, maxPixels: settings.maxPixels, pages: settings.pages, model, ...layout };
}

/** Stable hash of any JSON value with sorted keys; equal inputs give equal keys across runs. */
export function stableHash(value: unknown): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.keys(v as object)
          .sort()
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return createHash("sha256")
    .update(JSON.stringify(canonical(value)))
    .digest("hex");
}
