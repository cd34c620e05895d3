// Text scores for the end-to-end tests: CER over markup-free, whitespace-collapsed text; whether the bundle reads.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
// the HTML tags output and truth carry; a stray "<" in read text is text
import { MARKUP_TAG } from "../../scripts/cer.mjs";

export function plainText(markdown: string): string {
  return markdown
    .replace(/<!--[^]*?-->/g, " ")
    .replace(MARKUP_TAG, " ")
    .replace(/^#{1,6}\s+/gm, "")
    .replace(/^\s*(?:[-*•]|\d+[.)])\s+/gm, "")
    .normalize("NFKC")
    .replace(/\s+/g, " ")
    .trim();
}

export function cer(hypothesis: string, reference: string): number {
  const a = plainText(hypothesis);
  const b = plainText(reference);
  if (b.length === 0) return a.length ? 1 : 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]! / b.length;
}

/** Order-free word F1 over whitespace-separated words (a paragraph read in another order keeps its words). */
export function wordF1(hyp: string, ref: string): number {
  const count = (t: string) =>
    t
      .split(/\s+/)
      .filter(Boolean)
      .reduce((m, w) => m.set(w, (m.get(w) ?? 0) + 1), new Map<string, number>());
  const h = count(hyp),
    r = count(ref);
  let common = 0;
  for (const [w, n] of h) common += Math.min(n, r.get(w) ?? 0);
  const nh = [...h.values()].reduce((a, b) => a + b, 0),
    nr = [...r.values()].reduce((a, b) => a + b, 0);
  if (!common) return 0;
  const p = common / nh,
    q = common / nr;
  return (2 * p * q) / (p + q);
}

/**
 * Whether the bundle's own evaluation record (python/ocr_tools/train/evaluate.py --json, committed beside the bundle as
 * eval*.json) shows whole synthetic test pages read with CER below `bound` (a model that does not read scores ≈ 1). Text assertions run only then:
 * checking recognised text against a model that cannot read yet would test nothing.
 */
export function modelReads(dir: string, bound = 0.5): { reads: boolean; why: string } {
  if (!existsSync(dir)) return { reads: false, why: `${dir} is missing` };
  const files = readdirSync(dir).filter((f) => /^eval.*\.json$/.test(f));
  for (const f of files) {
    try {
      const record = JSON.parse(readFileSync(path.join(dir, f), "utf8")) as { rows?: { set?: string; model_cer?: number }[] };
      const pages = record.rows?.find((r) => r.set === "synthetic test");
      if (pages && typeof pages.model_cer === "number")
        return { reads: pages.model_cer < bound, why: `${f}: synthetic test pages CER ${pages.model_cer.toFixed(3)}` };
    } catch {
      /* not an evaluation record */
    }
  }
  return { reads: false, why: `no evaluation record (eval*.json) in ${dir}` };
}
