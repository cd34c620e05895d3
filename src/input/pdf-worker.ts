// pdfjs' side of the PDF back end, run on a worker thread so a runaway document can be stopped (terminate()).
// The worker is evaluated from a string so the same code runs from src/ under vitest and from dist/
// (the vision encoder's worker does the same); src/input/pdf.ts is its only user.

/** Requests the main thread sends; every reply carries the request's id. */
export type PdfRequest =
  | { op: "load" }
  | { op: "open"; data: Uint8Array; password?: string; folders: Record<string, string> }
  | { op: "size"; page: number }
  | { op: "render"; page: number; width: number; height: number; scale: number; dropCaches: boolean }
  | { op: "text"; page: number }
  | { op: "metadata" }
  | { op: "close" };

/** Failures keep the facts the main thread needs to build an InputError. */
export interface PdfFailure {
  name?: string;
  code?: number;
  message: string;
  /** "page": getPage failed; "render" / "text": the operation on a loaded page failed. */
  stage?: "page" | "render" | "text";
}

export const PDF_WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
const { pathToFileURL } = require("node:url");
let pdfjs;
let doc;
// pdfjs reports what it skipped (ignoreErrors) through console.log("Warning: ..."); a nesting overflow is one
// of those, and the only trace a page with lost content leaves. Kept per request, sent with the reply.
let notes = [];
const print = console.error.bind(console);
const keep = (args) => {
  const text = args.map(String).join(" ");
  if (workerData.verbose) print(text);
  if (/Maximum call stack|too much recursion/i.test(text)) notes.push(text.replace(/^Warning:\s*/, ""));
};
console.log = (...args) => keep(args);
console.warn = (...args) => keep(args);
console.error = (...args) => keep(args);
async function page(n) {
  try {
    return await doc.getPage(n);
  } catch (e) {
    throw Object.assign(new Error(e && e.message ? e.message : String(e)), { stage: "page" });
  }
}
const ops = {
  async load() {
    pdfjs ??= await import(pathToFileURL(workerData.pdfjsPath).href);
    return null;
  },
  async open(m) {
    pdfjs ??= await import(pathToFileURL(workerData.pdfjsPath).href);
    const task = pdfjs.getDocument({
      data: m.data, password: m.password, ...m.folders, cMapPacked: true, isEvalSupported: false,
      // warnings are needed to see content pdfjs skipped; they are filtered above, never printed
      verbosity: 1,
    });
    try {
      doc = await task.promise;
    } catch (e) {
      await task.destroy().catch(() => {});
      throw e;
    }
    return { pageCount: doc.numPages };
  },
  async size(m) {
    const v = (await page(m.page)).getViewport({ scale: 1 });
    return { width: v.width, height: v.height };
  },
  async render(m) {
    const p = await page(m.page);
    const viewport = p.getViewport({ scale: m.scale });
    const factory = doc.canvasFactory;
    const entry = factory.create(m.width, m.height);
    let dropped = false;
    try {
      const context = entry.context;
      context.fillStyle = "#ffffff";
      context.fillRect(0, 0, m.width, m.height);
      try {
        await p.render({ canvas: entry.canvas, canvasContext: context, viewport, background: "#ffffff" }).promise;
      } catch (e) {
        throw Object.assign(new Error(e && e.message ? e.message : String(e)), { stage: "render" });
      }
      const image = context.getImageData(0, 0, m.width, m.height);
      const rgba = new Uint8Array(image.data.length);
      rgba.set(image.data);
      return { value: { rgba }, transfer: [rgba.buffer] };
    } finally {
      factory.destroy(entry);
      p.cleanup();
      if (m.dropCaches) {
        try {
          await doc.cleanup();
          dropped = true;
        } catch {}
      }
      lastDropped = dropped;
    }
  },
  async text(m) {
    const p = await page(m.page);
    const viewport = p.getViewport({ scale: 1 });
    let content;
    try {
      content = await p.getTextContent();
    } catch (e) {
      throw Object.assign(new Error(e && e.message ? e.message : String(e)), { stage: "text" });
    }
    const items = [];
    for (const item of content.items) {
      if (!("str" in item)) continue;
      const s = content.styles[item.fontName];
      items.push({
        str: item.str, m: pdfjs.Util.transform(viewport.transform, item.transform), width: item.width,
        fontName: item.fontName, fontFamily: s ? s.fontFamily : "", ascent: s ? s.ascent : undefined,
        descent: s ? s.descent : undefined, hasEOL: item.hasEOL, dir: item.dir,
      });
    }
    return { width: viewport.width, height: viewport.height, items };
  },
  async metadata() {
    const info = {};
    try {
      const meta = await doc.getMetadata();
      for (const [k, v] of Object.entries(meta.info || {})) if (["string", "number", "boolean"].includes(typeof v)) info[k] = v;
    } catch {}
    let outline = [];
    try {
      const convert = (items) => (items || []).map((i) => ({ title: i.title, children: convert(i.items) }));
      outline = convert(await doc.getOutline());
    } catch {}
    return { info, outline };
  },
  async close() {
    const d = doc;
    doc = undefined;
    if (d) await d.destroy();
    return null;
  },
};
let lastDropped = false;
parentPort.on("message", async (m) => {
  notes = [];
  lastDropped = false;
  try {
    let result = await ops[m.op](m);
    let transfer = [];
    if (result && result.transfer) ({ value: result, transfer } = result);
    parentPort.postMessage({ id: m.id, ok: true, result, notes, dropped: lastDropped }, transfer);
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, notes, error: { name: e && e.name, code: e && e.code, message: e && e.message ? String(e.message) : String(e), stage: e && e.stage } });
  }
});
`;
