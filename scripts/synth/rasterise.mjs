// Rasterises generated PDFs with the product's own renderer (dist/input) and resizes like the model's page mode.
// Usage: node scripts/synth/rasterise.mjs DIR [--dpi 150] [--fit 928x1280]
// For every DIR/doc-XXXXX.pdf without pages yet, writes DIR/doc-XXXXX-pN.png (8-bit grey) and records in
// DIR/doc-XXXXX.raster.json the pixels-per-point scale of each page, so the trainer can map the
// generator's point boxes onto pixels. One node process handles the whole folder (startup is paid once).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { openDocument } = await import(path.join(root, "dist/input/index.js"));

function parseArgs(argv) {
  const args = { dir: undefined, dpi: 150, fit: "928x1280" };
  for (let i = 2; i < argv.length; i++) {
    if (argv[i] === "--dpi") args.dpi = Number(argv[++i]);
    else if (argv[i] === "--fit") args.fit = argv[++i];
    else args.dir = argv[i];
  }
  if (!args.dir) throw new Error("usage: rasterise.mjs DIR [--dpi 150] [--fit WxH]");
  const [w, h] = args.fit.split("x").map(Number);
  return { ...args, fitWidth: w, fitHeight: h };
}

const args = parseArgs(process.argv);
const pdfs = fs.readdirSync(args.dir).filter((f) => /^doc-\d+\.pdf$/.test(f)).sort();
let done = 0;
for (const file of pdfs) {
  const base = path.join(args.dir, file.replace(/\.pdf$/, ""));
  if (fs.existsSync(base + ".raster.json")) continue;
  const doc = await openDocument(path.join(args.dir, file));
  const pages = [];
  try {
    for (let n = 1; n <= doc.pageCount; n++) {
      const page = await doc.renderPage(n, { dpi: args.dpi });
      // The page mode fits the page inside fitWidth×fitHeight keeping its aspect ratio (then pads): same here.
      const factor = Math.min(args.fitWidth / page.width, args.fitHeight / page.height);
      const width = Math.round(page.width * factor), height = Math.round(page.height * factor);
      const png = await sharp(page.data, { raw: { width: page.width, height: page.height, channels: 3 } })
        .resize(width, height, { fit: "fill", kernel: "cubic" }) // as src/vision/preprocess.ts
        .greyscale()
        .png({ compressionLevel: 3 })
        .toBuffer();
      const out = `${base}-p${n}.png`;
      fs.writeFileSync(out + ".tmp", png);
      fs.renameSync(out + ".tmp", out);
      pages.push({ png: path.basename(out), width, height, scaleX: (page.scale * width) / page.width, scaleY: (page.scale * height) / page.height });
    }
  } finally {
    await doc.close();
  }
  fs.writeFileSync(base + ".raster.json", JSON.stringify({ dpi: args.dpi, fit: [args.fitWidth, args.fitHeight], pages }));
  done++;
  if (done % 50 === 0) process.stderr.write(`rasterised ${done} documents\n`);
}
process.stderr.write(`rasterised ${done} documents in ${args.dir}\n`);
