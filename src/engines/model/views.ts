// The model engine's views of a page: rendered, then encoded into the decoder's visual rows (a page grid with its
// tiles, or, for line-unit models, one view per text line), with the timings of each stage.
import type { LineView } from "../../vision/line-encoder.js";
import type { PageFormula } from "../../vision/formula.js";
import type { Extent } from "../../layout/xycut.js";
import { assembleVisualEmbeddings } from "../../vision/visual-sequence.js";
import { preparePage, type ContentBox, type PagePixels, type PreparedPage } from "../../vision/preprocess.js";
import type { DocumentPages } from "../engine.js";
import { EnvironmentError } from "../errors.js";
import type { LoadedModel } from "./bundle.js";

export interface PreparedPixels {
  pageNumber: number;
  timings?: Record<string, number>;
  width: number;
  height: number;
  dpi: number | undefined;
  embeddings: Float32Array;
  count: number;
  pixels: PagePixels;
  /** where the page sits in the global view (view pixels), for locating fixations */
  content?: ContentBox;
  /** line-unit mode: one view per text line, read one after another (embeddings is then empty) */
  views?: LineView[];
  /** line-unit mode: the page's pictures (screenshots, photographs), whose lines are not in `views` */
  pictures?: Extent[];
  /** line-unit mode: the page's display formulas read to LaTeX, their members indexing `views` */
  formulas?: PageFormula[];
  /** line-unit mode: the page's horizontal rules (layout/rules.ts), in page pixels */
  rules?: Extent[];
}

/** What one decode run reads: a page's whole view, or (line-unit models) one line's view with its box and slots. */
export type DecodeView = Pick<LineView, "embeddings"> & Partial<LineView>;

export function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** Renders and encodes pages for one loaded model. */
export class PageViews {
  constructor(private readonly m: LoadedModel) {}

  /** Encodes a prepared page (global view, then tiles when present) into its visual sequence. */
  async visual(prepared: PreparedPage): Promise<Float32Array> {
    const hidden = this.m.bundle.json.decoder.hidden_size;
    const g = prepared.global;
    const global = await this.m.encoder!.encode(g.pixels.slice(), [1, 3, g.height, g.width]);
    let tiles: Float32Array | undefined;
    if (prepared.tiles) {
      const t = prepared.tiles;
      tiles = (await this.m.encoder!.encode(t.pixels.slice(), [t.count, 3, t.height, t.width])).data;
    }
    if (global.dims[3] !== hidden)
      throw new EnvironmentError(`${this.m.bundle.encoderPath}: embeddings are ${global.dims[3]} wide, the decoder expects ${hidden}`);
    return assembleVisualEmbeddings(prepared.sequence, {
      hidden,
      global: global.data,
      tiles,
      newline: this.m.newline,
      separator: this.m.separator,
    });
  }

  async prepare(
    pages: DocumentPages,
    numbers: number[],
    timings: Map<number, Record<string, number>>,
    mode: string,
  ): Promise<PreparedPixels[]> {
    const out: PreparedPixels[] = [];
    for (const pageNumber of numbers) {
      let t = performance.now();
      const raster = await pages.render(pageNumber);
      const render = performance.now() - t;
      t = performance.now();
      // pixels are kept for figure crops only when the run writes files
      const pixels = pages.figureDir ? raster : { width: 0, height: 0, data: Buffer.alloc(0) };
      if (this.m.lines) {
        const json = this.m.bundle.json;
        const stages: Record<string, number> = {};
        const {
          views: lines,
          pictures,
          formulas,
          rules,
        } = await this.m.lines.views(
          raster,
          json.decoder.hidden_size,
          {
            rowNewline: json.vision.row_newline,
            viewSeparator: json.vision.view_separator,
            newline: this.m.newline,
            separator: this.m.separator,
          },
          stages,
        );
        // encode is the whole vision front end; its stages (detect, marks, layout, crops, recognise, project) follow it
        const encode = performance.now() - t;
        timings.set(pageNumber, {
          render: round(render),
          encode: round(encode),
          ...Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, round(v)])),
        });
        out.push({
          pageNumber,
          width: raster.width,
          height: raster.height,
          dpi: raster.dpi,
          embeddings: new Float32Array(0),
          count: lines.reduce((s, v) => s + v.count, 0),
          pixels,
          views: lines,
          pictures,
          formulas,
          rules,
        });
        continue;
      }
      const prepared = await preparePage(raster, this.m.bundle.json.vision, mode);
      const embeddings = await this.visual(prepared);
      timings.set(pageNumber, { render: round(render), encode: round(performance.now() - t) });
      out.push({
        pageNumber,
        width: raster.width,
        height: raster.height,
        dpi: raster.dpi,
        embeddings,
        count: prepared.visualTokens,
        pixels,
        content: prepared.global.content,
      });
    }
    return out;
  }
}
