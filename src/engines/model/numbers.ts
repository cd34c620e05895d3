// Decimal points the recogniser could not see. In a small table image a decimal point is one light-grey pixel: the
// recogniser reads "0.716" as "0716" and the range "0.152–1.190" as "0.1521.190" (it misses the thin dash too).
// A page's own well-read numbers say what its decimals look like: where at least DOMINANT_MIN of its numbers are
// "0." + k digits (p-values, ratios, CIs) and k is their most common length, then
//   - a standalone number of a leading 0 and exactly k more digits is that decimal ("0716" -> "0.716"; a leading
//     zero is otherwise rare in such a table, and an integer with one keeps it where no such decimals are);
//   - two k-decimal numbers written without anything between them are a range, joined by the range mark the page
//     uses elsewhere ("0.1521.190" -> "0.152–1.190").
// Percent signs the same way: "%" is read as "96" at that size ("(58.02796)" for "(58.027%)"); where at least
// DOMINANT_MIN of the page's percentages are read whole with k decimals, a k-decimal number followed by "96" and then
// a closing bracket, a space or the cell's end is that percentage ("58.027%"), and so is one of 1–3 + k digits
// before "%" (or "96" in brackets) that lost its point too ("(54538%" -> "(54.538%").
// Thousands grouped by spaces the same way: where at least GROUPED_MIN numbers are written in groups of three with
// a space between and share a decimal mark and length ("2 000,80"), a number of theirs read whole ("1000,40") is
// grouped too (groupingFormat). And grouping marks: where at least GROUPED_MIN numbers show both a grouping and a
// decimal mark ("$61,490.66"), one of the page's decimals whose groups are marked with its decimal mark
// ("$35.607.40", a scan's comma read as a point) takes the grouping mark (markFormat).
// Nothing changes on a page without that evidence.

/** Decimals "0.ddd" a page needs before its format decides anything. */
const DOMINANT_MIN = 3;
/** A number stands alone: no digit, decimal mark or letter touches it. */
const ALONE_BEFORE = "(?<![\\p{L}\\p{N}.,])";
const ALONE_AFTER = "(?![\\p{L}\\p{N}]|[.,]\\d)";

/** The most common of `keys` and its count (ties: the one `before` puts first, else the first seen). */
function mostCommon<K>(keys: Iterable<K>, before: (a: K, b: K) => number = () => 0): [key: K, count: number] | undefined {
  const counts = new Map<K, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || before(a[0], b[0]))[0];
}

/** The most common length of the first group of `pattern`'s matches in `text` (ties: the longer) and its count. */
function commonLength(text: string, pattern: RegExp): [length: number, count: number] {
  return (
    mostCommon(
      Array.from(text.matchAll(pattern), (m) => m[1]!.length),
      (a, b) => b - a,
    ) ?? [0, 0]
  );
}

/** The page's decimal format: digits after "0." in most of its decimals, and the mark between two ends of a range. */
export function decimalFormat(text: string): { decimals: number; range: string } | undefined {
  const [decimals, count] = commonLength(text, new RegExp(`${ALONE_BEFORE}0\\.(\\d+)${ALONE_AFTER}`, "gu"));
  if (count < DOMINANT_MIN || decimals < 2) return undefined;
  const marks = text.matchAll(new RegExp(`\\d\\.\\d{${decimals}}\\s?([–—-])\\s?\\d`, "gu"));
  const range = mostCommon(Array.from(marks, (m) => m[1]!))?.[0] ?? "–";
  return { decimals, range };
}

/** Decimals of most of the page's percentages read whole ("19.036%": 3), where at least DOMINANT_MIN share them. */
export function percentFormat(text: string): number | undefined {
  const [decimals, count] = commonLength(text, new RegExp(`${ALONE_BEFORE}\\d+\\.(\\d+)\\s?%`, "gu"));
  return count >= DOMINANT_MIN ? decimals : undefined;
}

/** Grouped numbers ("2 000,80") a page needs before its grouping decides anything. */
const GROUPED_MIN = 2;

/**
 * The page's thousands grouping by spaces, where it has one: the decimal mark and decimals of at least GROUPED_MIN
 * numbers written in groups of three with a space between ("2 000,80", "3 001,80": "," and 2). A thin space between
 * digit groups is narrower than the recogniser's blank steps between a number's digits, so it reads some of the
 * page's grouped numbers whole ("1000,40"); those with the same decimals take the page's groups.
 */
export function groupingFormat(text: string): { mark: string; decimals: number } | undefined {
  const numbers = text.matchAll(new RegExp(`${ALONE_BEFORE}\\d{1,3}(?: \\d{3})+([.,])(\\d+)${ALONE_AFTER}`, "gu"));
  const best = mostCommon(Array.from(numbers, (m) => `${m[1]}${m[2]!.length}`));
  return best && best[1] >= GROUPED_MIN ? { mark: best[0][0]!, decimals: Number(best[0].slice(1)) } : undefined;
}

/**
 * The page's grouping and decimal marks, where at least GROUPED_MIN of its numbers show both ("$61,490.66",
 * "1.234,56"): the grouping mark, the decimal mark and the decimals most of them have. A scan's comma is read as a
 * point as often as not at that size, so a number of the page's decimals whose grouping marks came out as its
 * decimal mark ("$35.607.40") takes the page's grouping mark: a number has one decimal mark, and the groups
 * before it are of three.
 */
export function markFormat(text: string): { group: string; decimal: string; decimals: number } | undefined {
  const numbers = text.matchAll(new RegExp(`${ALONE_BEFORE}\\d{1,3}([.,])\\d{3}(?:\\1\\d{3})*([.,])(\\d+)${ALONE_AFTER}`, "gu"));
  // (both marks the same: no number of both; "1,234,567" is grouping alone)
  const best = mostCommon(
    Array.from(numbers)
      .filter((m) => m[1] !== m[2])
      .map((m) => `${m[1]}${m[2]}${m[3]!.length}`),
  );
  return best && best[1] >= GROUPED_MIN ? { group: best[0][0]!, decimal: best[0][1]!, decimals: Number(best[0].slice(2)) } : undefined;
}

/** `digits` in groups of three from the right, a space between ("3557" -> "3 557"). */
function grouped(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+$)/g, " ");
}

/** The lines of one page (each a piece of its Markdown) with their lost decimal points and percent signs restored,
 * and its numbers grouped as the page groups them (see the file's head and groupingFormat). */
export function restoreDecimalPoints(lines: readonly string[]): string[] {
  const text = lines.join("\n");
  const format = decimalFormat(text);
  const percent = percentFormat(text);
  // each rewrite: a pattern and what replaces it, in the order they apply
  const rewrites: [RegExp, string | ((match: string, ...groups: string[]) => string)][] = [];
  if (format) {
    const k = format.decimals;
    rewrites.push(
      [new RegExp(`${ALONE_BEFORE}0(\\d{${k}})${ALONE_AFTER}`, "gu"), "0.$1"],
      [new RegExp(`${ALONE_BEFORE}(\\d+\\.\\d{${k}})(\\d+\\.\\d{${k}})${ALONE_AFTER}`, "gu"), `$1${format.range}$2`],
    );
  }
  if (percent !== undefined) {
    const end = "(?=[)\\]\\s<]|$)";
    rewrites.push(
      [new RegExp(`${ALONE_BEFORE}(\\d+\\.\\d{${percent}})96${end}`, "gu"), "$1%"],
      // …and one that lost its point as well: "(54538%" for "(54.538%"; with "96" for "%" only inside brackets, as
      // "n (p%)" is set ("(578596)" for "(5.785%)"): a plain integer ending in 96 is an integer ("86528396")
      [new RegExp(`${ALONE_BEFORE}(\\d{1,3})(\\d{${percent}})%${end}`, "gu"), "$1.$2%"],
      [new RegExp(`(?<=\\()(\\d{1,3})(\\d{${percent}})96(?=\\))`, "gu"), "$1.$2%"],
    );
  }
  const grouping = groupingFormat(text);
  const ungrouped = grouping
    ? new RegExp(`${ALONE_BEFORE}(\\d{4,})([${grouping.mark}]\\d{${grouping.decimals}})${ALONE_AFTER}`, "gu")
    : undefined;
  const marks = markFormat(text);
  if (marks) {
    // groups of three, each after the decimal mark, then the page's decimals: all but the last mark are groupings
    const d = marks.decimal === "." ? "\\." : ",";
    rewrites.push([
      new RegExp(`${ALONE_BEFORE}(\\d{1,3})((?:${d}\\d{3})+)${d}(\\d{${marks.decimals}})${ALONE_AFTER}`, "gu"),
      (_, head: string, groups: string, tail: string) => head + groups.replaceAll(marks.decimal, marks.group) + marks.decimal + tail,
    ]);
  }
  return lines.map((line) => {
    // (two calls: String.replace's overloads take a string or a function, not either)
    const out = rewrites.reduce(
      (text, [pattern, to]) => (typeof to === "string" ? text.replace(pattern, to) : text.replace(pattern, to)),
      line,
    );
    return ungrouped ? out.replace(ungrouped, (_, whole: string, decimals: string) => grouped(whole) + decimals) : out;
  });
}
