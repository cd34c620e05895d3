// Page images for the corpus with three rasterisers, so that no one renderer's pixels are learned:
// pdfjs (the product's own, dist/input), poppler (pdftoppm) and Ghostscript (gs), at 100-300 DPI, some of them
// scan-like. Every image records the pixels-per-point scale of its page (and any rotation), so that truth boxes in
// viewport points map onto its pixels exactly: boxToPixels().
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { degrade, hash, random } from "../synth/degrade.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
let inputModule;
async function input() {
  inputModule ??= import(path.join(root, "dist/input/index.js"));
  return inputModule;
}

export const RENDERERS = ["pdfjs", "poppler", "ghostscript"];

/** Renders page `n` (1-based) of `file` at `dpi` with `renderer`; returns a grey raw image {data, width, height}. */
export async function renderGrey(file, n, dpi, renderer, opened) {
  if (renderer === "pdfjs") {
    const doc = opened ?? (await (await input()).openDocument(file));
    try {
      const page = await doc.renderPage(n, { dpi, maxPixels: 100e6 });
      const { data, info } = await sharp(page.data, { raw: { width: page.width, height: page.height, channels: 3 } })
        .greyscale()
        .extractChannel(0)
        .raw()
        .toBuffer({ resolveWithObject: true });
      return { data, width: info.width, height: info.height };
    } finally {
      if (!opened) await doc.close();
    }
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "corpus-render-"));
  try {
    let out;
    if (renderer === "poppler") {
      // pdftoppm renders the crop box, as pdfjs' viewport does
      execFileSync(
        "pdftoppm",
        ["-f", String(n), "-l", String(n), "-r", String(dpi), "-gray", "-png", "-singlefile", file, path.join(tmp, "p")],
        { stdio: "pipe", timeout: 120_000 },
      );
      out = path.join(tmp, "p.png");
    } else if (renderer === "ghostscript") {
      out = path.join(tmp, "p.png");
      execFileSync(
        "gs",
        [
          "-q",
          "-dSAFER",
          "-dBATCH",
          "-dNOPAUSE",
          "-dUseCropBox",
          "-sDEVICE=pnggray",
          `-r${dpi}`,
          "-dTextAlphaBits=4",
          "-dGraphicsAlphaBits=4",
          `-dFirstPage=${n}`,
          `-dLastPage=${n}`,
          `-sOutputFile=${out}`,
          file,
        ],
        { stdio: "pipe", timeout: 120_000 },
      );
    } else throw new Error(`unknown renderer ${renderer} (use ${RENDERERS.join(", ")})`);
    const { data, info } = await sharp(out).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The pixels-per-point scale of an image of a page `width`×`height` points. Renderers round the pixel size
 * differently (pdfjs and gs: ceil or round of points × dpi / 72); the scale is the image's own. An image whose aspect
 * ratio is not the page's (another box rendered, a rotation lost) is an error.
 */
export function pixelScale(width, height, imageWidth, imageHeight) {
  const scaleX = imageWidth / width,
    scaleY = imageHeight / height;
  if (Math.abs(scaleX - scaleY) > 0.01 * scaleX + 1.5 / Math.min(width, height)) {
    throw new Error(`image ${imageWidth}x${imageHeight} does not have the page's shape ${width.toFixed(1)}x${height.toFixed(1)} pt`);
  }
  return { scaleX, scaleY };
}

/**
 * A truth box in points → the image's pixels: scaled by the raster entry's scaleX/scaleY, then (a scan-like page
 * turned by `rotate` degrees clockwise about the image centre) the axis-aligned box around the turned corners,
 * exactly as python/ocr_tools/train/data.py maps them.
 */
export function boxToPixels(box, raster) {
  const b = [box[0] * raster.scaleX, box[1] * raster.scaleY, box[2] * raster.scaleX, box[3] * raster.scaleY];
  if (!raster.rotate) return b;
  const a = (raster.rotate * Math.PI) / 180,
    c = Math.cos(a),
    s = Math.sin(a);
  const cx = raster.width / 2,
    cy = raster.height / 2;
  const pts = [
    [b[0], b[1]],
    [b[2], b[1]],
    [b[0], b[3]],
    [b[2], b[3]],
  ].map(([x, y]) => [cx + (x - cx) * c - (y - cy) * s, cy + (x - cx) * s + (y - cy) * c]);
  return [
    Math.min(...pts.map((p) => p[0])),
    Math.min(...pts.map((p) => p[1])),
    Math.max(...pts.map((p) => p[0])),
    Math.max(...pts.map((p) => p[1])),
  ];
}

/**
 * Scan-like page: some of binarisation (a threshold after a slight blur, as a fax or a 1-bit scanner), photocopy
 * artefacts (raised contrast, toner specks, a dark band along one edge), then scripts/synth/degrade.mjs's slight
 * rotation, blur, sensor noise and JPEG. Returns {png, rotate, ops}.
 */
export async function scanLike(grey, width, height, rng) {
  const raw = { raw: { width, height, channels: 1 } };
  const ops = [];
  let data = Buffer.from(grey);
  const roll = rng.next();
  if (roll < 0.25) {
    ops.push("binarise");
    data = await sharp(data, raw).blur(rng.float(0.5, 1.0)).extractChannel(0).raw().toBuffer();
    const t = Math.round(rng.float(140, 190));
    for (let i = 0; i < data.length; i++) data[i] = data[i] < t ? 0 : 255;
  } else if (roll < 0.5) {
    ops.push("photocopy");
    const gain = rng.float(1.2, 1.6),
      specks = Math.round(width * height * rng.float(2e-5, 1.5e-4));
    for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.min(255, Math.round(255 - (255 - data[i]) * gain)));
    for (let k = 0; k < specks; k++) {
      const x = Math.floor(rng.next() * width),
        y = Math.floor(rng.next() * height),
        r = rng.next() < 0.8 ? 0 : 1;
      for (let dy = -r; dy <= r; dy++)
        for (let dx = -r; dx <= r; dx++) {
          const xx = x + dx,
            yy = y + dy;
          if (xx >= 0 && yy >= 0 && xx < width && yy < height) data[yy * width + xx] = Math.round(rng.float(20, 120));
        }
    }
    const band = Math.round(Math.min(width, height) * rng.float(0.005, 0.02)),
      side = Math.floor(rng.next() * 4);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const d = side === 0 ? x : side === 1 ? width - 1 - x : side === 2 ? y : height - 1 - y;
        if (d < band) data[y * width + x] = Math.round(data[y * width + x] * (0.3 + (0.7 * d) / band));
      }
  } else ops.push("grey");
  const { png, rotate } = await degrade(data, width, height, rng);
  return { png, rotate, ops };
}

/**
 * Renders a document's truth pages (truth.pages[i].pdfPage of `file`) as DIR/NAME-pK.png and writes DIR/NAME.raster.json:
 * renderer and DPI drawn per page, a share `scan` of documents scan-like (drawn from `seed` and the document's source).
 */
export async function renderDocument(file, truth, dir, name, { seed = 1, scan = 0.35, report = { renderers: {}, scan: 0 } } = {}) {
  const rng = random(hash(`${seed}:${truth.source}`));
  const scanned = rng.next() < scan;
  const raster = { pages: [] };
  const skipped = [];
  let pdfjsDoc;
  try {
    for (let i = 0; i < truth.pages.length; i++) {
      const t = truth.pages[i];
      const renderer = RENDERERS[Math.floor(rng.next() * RENDERERS.length)];
      // scans: grey 300 DPI half the time, else 150-300; clean pages: 100-300 (100-200 more often: cheaper to render)
      const dpi = scanned
        ? rng.next() < 0.5
          ? 300
          : Math.round(rng.float(150, 300))
        : Math.round(rng.next() < 0.6 ? rng.float(100, 200) : rng.float(200, 300));
      if (renderer === "pdfjs") pdfjsDoc ??= await (await input()).openDocument(file);
      let img;
      try {
        img = await renderGrey(file, t.pdfPage, dpi, renderer, renderer === "pdfjs" ? pdfjsDoc : undefined);
      } catch (e) {
        throw new Error(`${truth.source} p${t.pdfPage}: ${renderer} failed: ${e.message}`);
      }
      let scale;
      try {
        scale = pixelScale(t.width, t.height, img.width, img.height);
      } catch (e) {
        // the renderer drew another box of the page (media vs crop box): the page is left out, counted
        report.dropped ??= {};
        report.dropped["render-shape"] = (report.dropped["render-shape"] ?? 0) + 1;
        process.stderr.write(`${truth.source} p${t.pdfPage}: ${renderer}: ${e.message}; page left out\n`);
        skipped.push(i);
        continue;
      }
      const { scaleX, scaleY } = scale;
      const png = `${name}-p${raster.pages.length + 1}.png`;
      let bytes,
        rotate = 0,
        ops = [];
      if (scanned) ({ png: bytes, rotate, ops } = await scanLike(img.data, img.width, img.height, rng));
      else
        bytes = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 1 } })
          .png({ compressionLevel: 3 })
          .toBuffer();
      fs.writeFileSync(path.join(dir, png + ".tmp"), bytes);
      fs.renameSync(path.join(dir, png + ".tmp"), path.join(dir, png));
      raster.pages.push({
        png,
        width: img.width,
        height: img.height,
        scaleX,
        scaleY,
        ...(rotate ? { rotate } : {}),
        renderer,
        dpi,
        ...(scanned ? { scan: ops } : {}),
      });
      report.renderers[renderer] = (report.renderers[renderer] ?? 0) + 1;
      if (scanned) report.scan++;
    }
  } finally {
    await pdfjsDoc?.close();
  }
  if (skipped.length) {
    // the truth keeps only the pages rendered, in step with the raster's
    truth.pages = truth.pages.filter((_, i) => !skipped.includes(i));
    fs.writeFileSync(path.join(dir, name + ".json"), JSON.stringify(truth));
  }
  if (raster.pages.length) fs.writeFileSync(path.join(dir, name + ".raster.json"), JSON.stringify(raster));
  return raster.pages.length;
}
