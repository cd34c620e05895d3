// Loads the focal / long R-SWA golden cases written by python/ocr_tools/reference/focal_reference.py.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Session } from "../../src/native/index.js";
import { fixturesDir } from "./helpers.js";

export interface AttentionCase {
  name: string;
  window: number | null;
  maxTokens: number;
  focal: { keep: number; layers: number; warmup: number } | null;
  tokens: number[];
  focalLayers: number[];
  fixations: number[][];
  /** Tokens generated before the prefix's visual rows are appended again as a second view (mid-generation). */
  extendAt?: number;
}

export function loadAttentionCases(model: string): AttentionCase[] {
  const file = path.join(fixturesDir, model, "golden/attention.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { cases: AttentionCase[] }).cases;
}

export async function collect(session: Session, maxTokens: number): Promise<number[]> {
  const out: number[] = [];
  for await (const t of session.generate({ maxTokens })) out.push(t);
  return out;
}
