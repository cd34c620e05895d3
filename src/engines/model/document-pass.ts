// Whole-document passes of multi-page prefix models (Unlimited-OCR): one R-SWA session per document, no page cap.
// Page 1 sits at the prompt's placeholder; each later page enters when the model closes the previous one with
// the page marker, and the previous page's visual entries retire then (as the streaming layout's views do), so
// the cache holds one page of visual entries, the prompt and the R-SWA window whatever the document's length.
//
// Positions past the model's trained context (decoder.max_position_embeddings) are what the reference does with
// them: positions keep counting one per entry and rotary embeddings are the unscaled formula at that position
// (python/ocr_tools/reference/deepseek_decoder.py rope_cos_sin; the converter refuses rope_scaling). Nothing is clamped,
// wrapped or rescaled: test/model/positions.test.ts holds the engine to the reference there, and
// test/app/document-pass.test.ts runs a pass far past it.
import type { NoRepeatRule, Session } from "../../native/index.js";
import { RunawayDetector } from "./runaway.js";

/** The text side of a pass: ids to text (to find the page marker) and text to ids (to close a cut-off page). */
export interface PassText {
  decode(ids: number[]): string;
  encode(text: string): number[];
}

export interface DocumentPassOptions {
  /** the prompt's ids without its visual span, and where in them page 1's visual rows go */
  prompt: { ids: number[]; visualStart: number };
  text: PassText;
  /** text the model writes before each page ("<PAGE>"); the first one opens page 1 and is not a page break */
  marker: string;
  eos: number;
  /** token cap per page */
  maxTokens: number;
  noRepeat?: NoRepeatRule;
  signal?: AbortSignal;
  /** called per generated token with the page it counts against and the tokens of that page so far */
  progress?: (pageIndex: number, tokens: number) => void;
}

export interface PassPage {
  /** the page's text between its markers */
  text: string;
  /** tokens generated while the page was in view (its marker included) */
  tokens: number;
  /** "marker": the model opened the next page; "eos": it ended the document; "length": the cap cut it off;
   *  "runaway": the output kept repeating itself (src/engines/model/runaway.ts) and the page was cut there;
   *  "unreadable": `views` had no rows for the page, which was skipped */
  end: "marker" | "eos" | "length" | "runaway" | "cancelled" | "unreadable";
  prefillMs: number;
  decodeMs: number;
  /** the session right after the page: entries attended and KV bytes allocated */
  cache: { liveEntries: number; bytes: number; length: number };
}

/** How far back the marker is looked for in the page's newest tokens (a marker is a few tokens at most). */
const MARKER_TAIL = 12;

function cacheOf(session: Session): PassPage["cache"] {
  const s = session.stats();
  return { liveEntries: s.liveEntries, bytes: s.cacheBytes, length: s.length };
}

/**
 * Runs the pass over `count` pages. `views(i)` gives page i's visual rows ([rows, hidden]) when its turn comes,
 * or undefined for a page that cannot be read. Yields one PassPage per page, in order.
 */
export async function* documentPass(
  session: Session,
  count: number,
  views: (index: number) => Promise<Float32Array | undefined>,
  o: DocumentPassOptions,
  hidden: number,
): AsyncGenerator<PassPage> {
  const { ids, visualStart } = o.prompt;
  // the pass starts at the first page that can be read; until then nothing is in the session
  let visual: [number, number] | undefined;
  // the marker entries appended after a cut-off page: attended (as extended entries are) until one page later
  let closer: [number, number] | undefined;
  let oldCloser: [number, number] | undefined;
  // text after a marker that belongs to the next page (a token can hold the marker and what follows it)
  let carry = "";
  for (let index = 0; index < count; index++) {
    let t = performance.now();
    const embeddings = await views(index);
    if (!embeddings) {
      // a page that cannot be read is skipped: the model goes from the page before it to the page after it
      yield { text: "", tokens: 0, end: "unreadable", prefillMs: 0, decodeMs: 0, cache: cacheOf(session) };
      continue;
    }
    if (!visual) {
      const rows = embeddings.length / hidden;
      const ext = await session.prefill({
        tokens: ids,
        embeddings,
        embeddingPositions: Array.from({ length: rows }, (_, k) => visualStart + k),
      });
      visual = [ext.start + visualStart, ext.start + visualStart + rows];
    } else {
      await session.retire(visual[0], visual[1]);
      if (oldCloser) await session.retire(oldCloser[0], oldCloser[1]);
      oldCloser = closer;
      closer = undefined;
      const e = await session.extend({ tokens: [], embeddings });
      visual = [e.start, e.start + e.count];
    }
    const prefillMs = performance.now() - t;
    t = performance.now();
    const page: number[] = [];
    // tokens of `page` from here on may hold the marker (an opening marker already read is before it)
    let from = 0;
    let text = carry;
    carry = "";
    let end: PassPage["end"] = "length";
    const detector = new RunawayDetector();
    while (page.length < o.maxTokens) {
      if (o.signal?.aborted) {
        end = "cancelled";
        break;
      }
      const r = await session.generate({ maxTokens: 1, stopTokens: [o.eos], noRepeat: o.noRepeat }).result;
      if (r.reason === "cancelled" || r.tokens.length === 0) {
        end = "cancelled";
        break;
      }
      const token = r.tokens[0]!;
      page.push(token);
      o.progress?.(index, page.length);
      if (token === o.eos) {
        text += o.text.decode(page.slice(from, -1));
        end = "eos";
        break;
      }
      if (detector.push(token)) {
        end = "runaway";
        break;
      }
      const tail = o.text.decode(page.slice(Math.max(from, page.length - MARKER_TAIL)));
      if (!tail.includes(o.marker)) continue;
      const read = o.text.decode(page.slice(from));
      const at = read.indexOf(o.marker);
      const before = text + read.slice(0, at);
      const after = read.slice(at + o.marker.length);
      from = page.length;
      if (!before.trim()) {
        // the marker that opens the page (the model writes one before every page, the first one included)
        text = after;
        continue;
      }
      text = before;
      carry = after;
      end = "marker";
      break;
    }
    if (end === "length" || end === "runaway" || end === "cancelled") text += o.text.decode(page.slice(from));
    const decodeMs = performance.now() - t;
    if ((end === "length" || end === "runaway") && index + 1 < count) {
      // the page never closed: close it so the next page enters after a marker, as the model would have written
      const e = await session.extend({ tokens: o.text.encode(o.marker) });
      closer = [e.start, e.start + e.count];
    }
    const s = session.stats();
    yield {
      text,
      tokens: page.length,
      end,
      prefillMs,
      decodeMs,
      cache: { liveEntries: s.liveEntries, bytes: s.cacheBytes, length: s.length },
    };
    if (end === "cancelled") return;
  }
}
