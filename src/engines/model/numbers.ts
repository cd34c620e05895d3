// Decimal points the recogniser could not see. In a small table image a decimal point is one light-grey pixel: the
// recogniser reads "0.716" as "0716" and the range "0.152–1.190" as "0.1521.190" (it misses the thin dash too).
// A page's own well-read numbers say what its decimals look like: where at least DOMINANT_MIN of its numbers are
// "0." + k digits (p-values, ratios, CIs) and k is their most common length, then
//   - a standalone number of a leading 0 and exactly k more digits is that decimal ("0716" -> "0.716"; a leading
//     zero is otherwise rare in such a table, and an integer with one keeps it where no such decimals are);
//   - two k-decimal numbers written without anything between them are a range, joined by the range mark the page
//     uses elsewhere ("0.1521.190" -> "0.152–1.190").
// Nothing changes on a page without that evidence.

/** Decimals "0.ddd" a page needs before its format decides anything. */
const DOMINANT_MIN = 3;
/** A number stands alone: no digit, decimal mark or letter touches it. */
const ALONE_BEFORE = "(?<![\\p{L}\\p{N}.,])";
const ALONE_AFTER = "(?![\\p{L}\\p{N}]|[.,]\\d)";

/** The page's decimal format: digits after "0." in most of its decimals, and the mark between two ends of a range. */
export function decimalFormat(text: string): { decimals: number; range: string } | undefined {
  const counts = new Map<number, number>();
  for (const m of text.matchAll(new RegExp(`${ALONE_BEFORE}0\\.(\\d+)${ALONE_AFTER}`, "gu"))) {
    const k = m[1]!.length;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  let decimals = 0,
    best = 0;
  for (const [k, n] of counts) if (n > best || (n === best && k > decimals)) [decimals, best] = [k, n];
  if (best < DOMINANT_MIN || decimals < 2) return undefined;
  const marks = new Map<string, number>();
  for (const m of text.matchAll(new RegExp(`\\d\\.\\d{${decimals}}\\s?([–—-])\\s?\\d`, "gu")))
    marks.set(m[1]!, (marks.get(m[1]!) ?? 0) + 1);
  const range = [...marks].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "–";
  return { decimals, range };
}

/** The lines of one page (each a piece of its Markdown) with their lost decimal points restored (see the file's head). */
export function restoreDecimalPoints(lines: readonly string[]): string[] {
  const format = decimalFormat(lines.join("\n"));
  if (!format) return [...lines];
  const k = format.decimals;
  const leadingZero = new RegExp(`${ALONE_BEFORE}0(\\d{${k}})${ALONE_AFTER}`, "gu");
  const jammed = new RegExp(`${ALONE_BEFORE}(\\d+\\.\\d{${k}})(\\d+\\.\\d{${k}})${ALONE_AFTER}`, "gu");
  return lines.map((line) => line.replace(leadingZero, "0.$1").replace(jammed, `$1${format.range}$2`));
}
