// Where a page may hold display formulas: lines set apart from the text around them (indented from both sides of
// their column, or alone on the page), grouped with the lines a formula's numerator, limits or rows were detected
// as, and the equation number at the column's right edge. The formula reader (vision/formula.ts) decides whether
// each region is a formula at all; this only keeps it from reading every line of the page.
import { extentOf, median, overlapX, type Extent } from "./xycut.js";

export interface FormulaRegion {
  /** indices of the lines the formula was detected as */
  members: number[];
  /** the line holding its equation number ("(7)"), if one sits at the column's right edge beside it, and the number */
  tag?: { line: number; number: string };
  /** the members' union */
  box: Extent;
}

/** An equation number as the recogniser reads one: (7), (3.12), (2a); the number is its first group. */
const TAG = /^\(\s*([0-9IVX]{1,3}(?:\.\d{1,3})?[a-z]?)\s*\)$/;

const height = (b: Extent) => b.yMax - b.yMin;
const gapY = (a: Extent, b: Extent) => Math.max(a.yMin, b.yMin) - Math.min(a.yMax, b.yMax);

/**
 * Display-formula regions among a page's lines (`texts`: the recogniser's reading of each). A line is a candidate
 * when the lines of its column within a few line heights leave it indented on both sides by at least one line
 * height and about centred between them, or when no such lines exist (a formula alone on the page or in a crop); candidates a line's height or less
 * apart vertically and overlapping horizontally are one region, at most six line heights tall.
 */
export function formulaRegions(boxes: readonly Extent[], texts: readonly string[]): FormulaRegion[] {
  const h = median(boxes.map(height)) || 10;
  const isTag = (i: number) => TAG.test(texts[i]!.trim());
  const candidate: boolean[] = boxes.map((b, i) => {
    if (isTag(i)) return false;
    let left = Infinity,
      right = -Infinity,
      near = 0;
    boxes.forEach((o, j) => {
      if (j === i || isTag(j) || Math.abs(o.yMin - b.yMin) > 8 * h) return;
      if (overlapX(o, b) <= 0) return;
      near++;
      left = Math.min(left, o.xMin);
      right = Math.max(right, o.xMax);
    });
    if (near === 0) return true;
    // set apart on both sides, and about centred (a list item's or an indented code line's short end is not)
    const l = b.xMin - left,
      r = right - b.xMax;
    return l >= h && r >= h && Math.abs(l - r) <= 0.5 * Math.max(l, r) + 2 * h;
  });
  // union of candidates that touch
  const parent = boxes.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      if (!candidate[i] || !candidate[j]) continue;
      const a = boxes[i]!,
        b = boxes[j]!;
      if (gapY(a, b) <= h && overlapX(a, b) > 0) parent[find(i)] = find(j);
    }
  const groups = new Map<number, number[]>();
  boxes.forEach((_, i) => {
    if (candidate[i]) groups.set(find(i), [...(groups.get(find(i)) ?? []), i]);
  });
  const out: FormulaRegion[] = [];
  for (const members of groups.values()) {
    const box = extentOf(members, boxes);
    if (height(box) > 6 * h) continue;
    // the equation number: a tag line to the right, level with the region
    const tag = boxes.findIndex(
      (t, j) => isTag(j) && t.xMin > box.xMax && Math.min(t.yMax, box.yMax) - Math.max(t.yMin, box.yMin) > 0.3 * height(t),
    );
    const number = tag >= 0 ? TAG.exec(texts[tag]!.trim())![1]! : undefined;
    out.push({ members: members.sort((a, b) => a - b), box, ...(number ? { tag: { line: tag, number } } : {}) });
  }
  return out.sort((a, b) => a.members[0]! - b.members[0]!);
}

/**
 * A page's lines with each display formula's lines replaced by one line: its LaTeX as a $$ block (with \tag{n}), or,
 * where the reader was unsure of it (`sure` false), the text its lines were read as, in the $$ block all the same.
 */
export function withFormulas<L extends { box: Extent; markdown: string }>(
  lines: readonly L[],
  formulas: readonly { members: readonly number[]; tag?: { line: number; number: string }; latex: string; sure?: boolean }[],
): { box: Extent; markdown: string }[] {
  if (!formulas.length) return [...lines];
  const first = new Map<number, (typeof formulas)[number]>();
  const gone = new Set<number>();
  for (const f of formulas) {
    first.set(f.members[0]!, f);
    for (const m of f.members) gone.add(m);
    if (f.tag) gone.add(f.tag.line);
  }
  const out: { box: Extent; markdown: string }[] = [];
  let after = false;
  lines.forEach((line, i) => {
    const f = first.get(i);
    if (f) {
      const box = extentOf(
        [...f.members, ...(f.tag ? [f.tag.line] : [])],
        lines.map((l) => l.box),
      );
      const tag = f.tag ? ` \\tag{${f.tag.number}}` : "";
      const body =
        f.sure === false
          ? f.members
              .map((k) =>
                lines[k]!.markdown.replace(/^\s*(?:#{1,6} |```\n?)?/, "")
                  .replace(/\n?```\s*$/, "")
                  .replace(/\$/g, "")
                  .trim(),
              )
              .join(" ")
          : f.latex;
      out.push({ box, markdown: `${out.length ? "\n\n" : ""}$$${body}${tag}$$` });
      after = true;
      return;
    }
    if (gone.has(i)) return;
    // the text after a display formula starts a new block
    out.push(after ? { box: line.box, markdown: line.markdown.replace(/^\s*/, "\n\n") } : { box: line.box, markdown: line.markdown });
    after = false;
  });
  return out;
}
