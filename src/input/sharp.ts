// sharp (libvips) loaded on first use: importing it costs about 0.3-0.4 s of CPU at start-up, which a run over PDFs
// only (the default model reads pdfjs' pixels) never needs.
type SharpModule = typeof import("sharp");

let sharpPromise: Promise<SharpModule["default"]> | undefined;

export function loadSharp(): Promise<SharpModule["default"]> {
  sharpPromise ??= import("sharp").then((m) => m.default);
  return sharpPromise;
}
