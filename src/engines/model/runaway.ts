// Runaway-output rule: ends a page whose recent tokens keep cycling through a handful of short patterns.
// The decoder's no-repeat n-gram ban stops exact long repeats; a weak or confused model then drifts into
// near-loops (runs of spaces, two letters alternating) that the ban never catches, and would fill the
// whole token cap. Real text, tables included, has far more distinct short n-grams than this allows.

export interface RunawayRule {
  /** Recent tokens examined (not the R-SWA window). */
  span: number;
  /** n-gram size counted. */
  n: number;
  /** The page ends when fewer than span × minDistinct distinct n-grams are among the last `span` tokens. */
  minDistinct: number;
}

export const DEFAULT_RUNAWAY: RunawayRule = { span: 256, n: 4, minDistinct: 1 / 8 };

/** Feed tokens one by one; `push` returns true once the span is full and degenerate. */
export class RunawayDetector {
  private readonly tail: number[] = [];
  private sinceCheck = 0;

  constructor(private readonly rule: RunawayRule = DEFAULT_RUNAWAY) {}

  push(token: number): boolean {
    this.tail.push(token);
    if (this.tail.length > this.rule.span) this.tail.shift();
    // counting is O(span); every 16 tokens keeps it far below the cost of a decode step
    if (this.tail.length < this.rule.span || ++this.sinceCheck < 16) return false;
    this.sinceCheck = 0;
    return this.degenerate();
  }

  degenerate(): boolean {
    const { n, span, minDistinct } = this.rule;
    if (this.tail.length < span) return false;
    const seen = new Set<string>();
    for (let i = 0; i + n <= this.tail.length; i++) seen.add(this.tail.slice(i, i + n).join(","));
    return seen.size < span * minDistinct;
  }
}
