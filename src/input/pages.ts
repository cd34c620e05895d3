// Page selections like "1-3,7,10-": parsed once, resolved against each document's page count.

export interface PageRange {
  first: number;
  /** Inclusive; undefined means "to the last page". */
  last: number | undefined;
}

/** Parses a 1-based selection. Throws Error with a readable message on bad syntax. */
export function parsePageSelection(spec: string): PageRange[] {
  const ranges: PageRange[] = [];
  for (const raw of spec.split(",")) {
    const part = raw.trim();
    const match = /^(\d+)?\s*(-)?\s*(\d+)?$/.exec(part);
    if (!part || !match || (!match[1] && !match[3])) {
      throw new Error(`bad page selection "${spec}": "${part}" is not N, N-M, N- or -M`);
    }
    const first = match[1] ? Number(match[1]) : 1;
    const last = match[2] ? (match[3] ? Number(match[3]) : undefined) : first;
    if (first < 1) throw new Error(`bad page selection "${spec}": pages count from 1`);
    if (last !== undefined && last < first) throw new Error(`bad page selection "${spec}": ${first}-${last} runs backwards`);
    ranges.push({ first, last });
  }
  return ranges;
}

/**
 * Page numbers of a document selected by the ranges, ascending and without repeats.
 * Numbers past the end are dropped (the caller warns if the result is shorter than asked).
 */
export function resolvePages(ranges: PageRange[] | undefined, pageCount: number): number[] {
  if (!ranges || ranges.length === 0) return Array.from({ length: pageCount }, (_, i) => i + 1);
  const chosen = new Set<number>();
  for (const { first, last } of ranges) {
    const end = Math.min(last ?? pageCount, pageCount);
    for (let p = first; p <= end; p++) chosen.add(p);
  }
  return [...chosen].sort((a, b) => a - b);
}

/** Canonical text of a selection, used in settings (and so in --resume's up-to-date check). */
export function formatPageSelection(ranges: PageRange[] | undefined): string {
  if (!ranges || ranges.length === 0) return "all";
  return ranges.map((r) => (r.last === r.first ? `${r.first}` : `${r.first}-${r.last ?? ""}`)).join(",");
}
