// The `--jobs` memory estimate of the model engine: peak bytes of one document in flight.
import type { AttentionPolicy } from "../../native/index.js";
import type { ModeSpec, ModelJson } from "../../model/schema.js";

/** Entries of one view in a mode: the global grid with its row newlines and the separator, plus the most tiles. */
export function viewEntries(mode: ModeSpec): number {
  const tiles = mode.tiles ? mode.tiles.max_tiles * mode.tiles.grid[0] * (mode.tiles.grid[1] + 1) : 0;
  return mode.grid[0] * (mode.grid[1] + 1) + 1 + tiles;
}

export interface MemoryOptions {
  mode: string;
  documentMode: string;
  attention: AttentionPolicy;
  maxTokens: number;
  /** line-unit models hold a page's line views (about 60 lines of embeddings) */
  lineUnit?: boolean;
}

/** Prompt entries and the marker closers the decode loops append (a generous bound). */
const PROMPT_ENTRIES = 64;

/**
 * The most KV entries one document's session holds at once. Under R-SWA the cache is constant in the
 * document's length: one page's visual entries (the previous page retired), the prompt and the window of
 * generated entries. Full attention keeps every generated entry of its pass: a pass is then one page.
 */
export function cacheEntries(json: ModelJson, o: MemoryOptions): number {
  const modes = json.vision.modes;
  const generated = o.attention.kind === "rswa" ? o.attention.window : o.maxTokens;
  if (json.layout === "streaming") return PROMPT_ENTRIES + viewEntries(modes[o.mode]!) + generated + o.maxTokens / 16;
  // prefix layout: a page alone in its mode, or a multi-page pass's pages (one at a time) in the document mode
  const view = Math.max(viewEntries(modes[o.mode]!), viewEntries(modes[o.documentMode]!));
  return PROMPT_ENTRIES + view + generated;
}

/** Slots the session allocates for `entries`: its cache starts at 64 slots and doubles (ops/session.cpp reserve_slots). */
export function cacheSlots(entries: number): number {
  let slots = 64;
  while (slots < entries) slots *= 2;
  return slots;
}

/** Bytes per KV entry: keys and values of every layer, f32. */
export function bytesPerEntry(json: ModelJson): number {
  const d = json.decoder;
  return d.num_hidden_layers * 2 * d.num_key_value_heads * d.head_dim * 4;
}

/**
 * A line-unit model's lane of vision sessions, one per document or page in flight: the sessions (69 MiB) and the
 * detector's working memory on a 150-DPI A4 page (125-139 MiB), measured (docs/benchmarks.md, twelfth session).
 */
export const LANE_BYTES = 200 * 2 ** 20;

/** Peak bytes of one document in flight: its KV cache, two pages of pixels and two pages of embeddings (and a lane). */
export function bytesPerDocument(json: ModelJson, o: MemoryOptions, dpi: number): number {
  const view = Math.max(viewEntries(json.vision.modes[o.mode]!), viewEntries(json.vision.modes[o.documentMode]!));
  // a US Letter / A4 page at `dpi`, RGB: the page being decoded and the next one being prepared
  const pixels = 2 * 3 * Math.ceil(8.5 * dpi) * Math.ceil(11.7 * dpi);
  const embeddings = 2 * view * json.decoder.hidden_size * 4 * (o.lineUnit ? 60 : 1);
  return Math.ceil(cacheSlots(cacheEntries(json, o)) * bytesPerEntry(json) + pixels + embeddings + (o.lineUnit ? LANE_BYTES : 0));
}
