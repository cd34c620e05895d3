// Page pixels → normalised float32 CHW views for a bundle's preprocessing mode (stretch, pad with grey, tiles), as PIL would.
import type { Extent } from "../layout/xycut.js";
import type { ModeSpec, VisionConfig } from "../model/schema.js";
import type { VisualSequence } from "./visual-sequence.js";
import { visualTokenCount } from "./visual-sequence.js";
import { resizeBicubic } from "./resample.js";
import { chooseTileGrid, needsTiles } from "./tiles.js";

/** Raw RGB page pixels, as the rasteriser produces them. */
export interface PagePixels {
  width: number;
  height: number;
  /** width·height·3 bytes, RGB, row-major */
  data: Buffer;
}

/** The luminance (0-255, ITU-R 601 weights) of the RGB pixel whose red byte is at `i` in `rgb`: what tells ink from
 * paper, whatever their colours. */
export function luminance(rgb: Uint8Array, i: number): number {
  return 0.299 * rgb[i]! + 0.587 * rgb[i + 1]! + 0.114 * rgb[i + 2]!;
}

/** The whole pixels of the page that `box` covers: [x0, x1) × [y0, y1), clamped to the page. */
export function pixelRegion(page: { width: number; height: number }, box: Extent): { x0: number; x1: number; y0: number; y1: number } {
  return {
    x0: Math.max(0, Math.floor(box.xMin)),
    x1: Math.min(page.width, Math.ceil(box.xMax)),
    y0: Math.max(0, Math.floor(box.yMin)),
    y1: Math.min(page.height, Math.ceil(box.yMax)),
  };
}

/** Where the page's content sits inside a view, in view pixels (the rest is padding). */
export interface ContentBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PreparedPage {
  mode: string;
  sequence: VisualSequence;
  /** [3, H, W] normalised global view */
  global: { pixels: Float32Array; width: number; height: number; content: ContentBox };
  /** [n, 3, h, w] normalised tiles, row-major over the tile grid; absent when the page gets no tiles */
  tiles?: { pixels: Float32Array; count: number; width: number; height: number; cols: number; rows: number };
  visualTokens: number;
}

/** Python's round(): halves go to the even neighbour (the reference's pad geometry uses it). */
export function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Size and offset of the page inside a padded view: fit keeping the aspect ratio, centred (PIL ImageOps.pad). */
export function padPlacement(pageWidth: number, pageHeight: number, viewWidth: number, viewHeight: number): ContentBox {
  const pageRatio = pageWidth / pageHeight;
  const viewRatio = viewWidth / viewHeight;
  if (pageRatio === viewRatio) return { x: 0, y: 0, width: viewWidth, height: viewHeight };
  if (pageRatio > viewRatio) {
    const height = roundHalfEven((pageHeight / pageWidth) * viewWidth);
    return { x: 0, y: roundHalfEven((viewHeight - height) * 0.5), width: viewWidth, height };
  }
  const width = roundHalfEven((pageWidth / pageHeight) * viewHeight);
  return { x: roundHalfEven((viewWidth - width) * 0.5), y: 0, width, height: viewHeight };
}

/** Top-left placement: the page keeps its pixels when it fits; a larger page is shrunk to fit, aspect kept. */
export function topLeftPlacement(pageWidth: number, pageHeight: number, viewWidth: number, viewHeight: number): ContentBox {
  if (pageWidth <= viewWidth && pageHeight <= viewHeight) return { x: 0, y: 0, width: pageWidth, height: pageHeight };
  const scale = Math.min(viewWidth / pageWidth, viewHeight / pageHeight);
  return { x: 0, y: 0, width: Math.max(1, Math.round(pageWidth * scale)), height: Math.max(1, Math.round(pageHeight * scale)) };
}

function checkPixels(page: PagePixels): void {
  if (page.data.length !== page.width * page.height * 3)
    throw new Error(`page pixels hold ${page.data.length} bytes, ${page.width}×${page.height} RGB needs ${page.width * page.height * 3}`);
}

async function resizeRaw(page: PagePixels, width: number, height: number): Promise<Buffer> {
  if (width === page.width && height === page.height) return page.data;
  checkPixels(page);
  // PIL's bicubic, bit for bit: libvips' cubic differs by several grey levels when enlarging
  const out = resizeBicubic(page.data, page.width, page.height, width, height);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/** Writes an RGB region into a [3, H, W] float32 plane set, normalised (x/255 − mean)/std. */
function normaliseInto(
  out: Float32Array,
  outOffset: number,
  rgb: Buffer,
  srcWidth: number,
  region: { x: number; y: number; width: number; height: number },
  mean: number[],
  std: number[],
): void {
  const plane = region.width * region.height;
  const scale = [0, 1, 2].map((c) => 1 / (255 * std[c]!));
  const shift = [0, 1, 2].map((c) => mean[c]! / std[c]!);
  for (let y = 0; y < region.height; y++) {
    let src = ((region.y + y) * srcWidth + region.x) * 3;
    const row = outOffset + y * region.width;
    for (let x = 0; x < region.width; x++, src += 3) {
      out[row + x] = rgb[src]! * scale[0]! - shift[0]!;
      out[row + plane + x] = rgb[src + 1]! * scale[1]! - shift[1]!;
      out[row + 2 * plane + x] = rgb[src + 2]! * scale[2]! - shift[2]!;
    }
  }
}

async function globalView(page: PagePixels, mode: ModeSpec, vision: VisionConfig): Promise<PreparedPage["global"]> {
  const [viewWidth, viewHeight] = mode.size;
  let content: ContentBox;
  let rgb: Buffer;
  if (mode.resize === "stretch") {
    content = { x: 0, y: 0, width: viewWidth, height: viewHeight };
    rgb = await resizeRaw(page, viewWidth, viewHeight);
  } else {
    content =
      mode.anchor === "top-left"
        ? topLeftPlacement(page.width, page.height, viewWidth, viewHeight)
        : padPlacement(page.width, page.height, viewWidth, viewHeight);
    const inner = await resizeRaw(page, content.width, content.height);
    const [r, g, b] = vision.pad_color;
    rgb = Buffer.alloc(viewWidth * viewHeight * 3);
    for (let i = 0; i < rgb.length; i += 3) {
      rgb[i] = r;
      rgb[i + 1] = g;
      rgb[i + 2] = b;
    }
    for (let y = 0; y < content.height; y++)
      inner.copy(rgb, ((content.y + y) * viewWidth + content.x) * 3, y * content.width * 3, (y + 1) * content.width * 3);
  }
  const pixels = new Float32Array(3 * viewWidth * viewHeight);
  normaliseInto(pixels, 0, rgb, viewWidth, { x: 0, y: 0, width: viewWidth, height: viewHeight }, vision.mean, vision.std);
  return { pixels, width: viewWidth, height: viewHeight, content };
}

/** Resolves a mode name (case-insensitive) against the bundle's modes. */
export function resolveMode(vision: VisionConfig, name?: string): [string, ModeSpec] {
  const wanted = (name ?? vision.mode).toLowerCase();
  const spec = vision.modes[wanted];
  if (!spec) throw new Error(`unknown mode "${name}"; this model has ${Object.keys(vision.modes).join(", ")}`);
  return [wanted, spec];
}

/**
 * The mode of pages that share a multi-page pass, given the mode a page alone gets: that mode when it cuts no
 * tiles, else the bundle's document_mode, else "base". A multi-page pass never tiles (the reference's infer_multi
 * reads one padded view per page).
 */
export function documentModeOf(vision: VisionConfig, pageMode: string): string {
  const [name, spec] = resolveMode(vision, pageMode);
  if (!spec.tiles) return name;
  const fallback = vision.document_mode ?? "base";
  const [doc, docSpec] = resolveMode(vision, fallback);
  if (docSpec.tiles) throw new Error(`mode "${doc}" cuts tiles; a multi-page pass needs an untiled mode`);
  return doc;
}

/** Prepares one page for the encoder: the global view, tiles when the mode has them and the page is large enough. */
export async function preparePage(page: PagePixels, vision: VisionConfig, modeName?: string): Promise<PreparedPage> {
  if (!(page.width > 0 && page.height > 0)) throw new Error(`page has no pixels (${page.width}×${page.height})`);
  checkPixels(page);
  const [name, mode] = resolveMode(vision, modeName);
  const global = await globalView(page, mode, vision);
  const sequence: VisualSequence = {
    global: { rows: mode.grid[0], cols: mode.grid[1] },
    rowNewline: vision.row_newline,
    viewSeparator: vision.view_separator,
  };
  let tiles: PreparedPage["tiles"];
  const t = mode.tiles;
  if (t && needsTiles(page.width, page.height, t.size[0], t.size[1])) {
    const grid = chooseTileGrid(page.width, page.height, t.size[0], t.min_tiles, t.max_tiles);
    const [tw, th] = t.size;
    const fullWidth = tw * grid.cols;
    const rgb = await resizeRaw(page, fullWidth, th * grid.rows);
    const count = grid.cols * grid.rows;
    const pixels = new Float32Array(count * 3 * tw * th);
    for (let i = 0; i < count; i++) {
      const region = { x: (i % grid.cols) * tw, y: Math.floor(i / grid.cols) * th, width: tw, height: th };
      normaliseInto(pixels, i * 3 * tw * th, rgb, fullWidth, region, vision.mean, vision.std);
    }
    tiles = { pixels, count, width: tw, height: th, cols: grid.cols, rows: grid.rows };
    sequence.tiles = { tileRows: grid.rows, tileCols: grid.cols, grid: { rows: t.grid[0], cols: t.grid[1] } };
  }
  return { mode: name, sequence, global, tiles, visualTokens: visualTokenCount(sequence) };
}
