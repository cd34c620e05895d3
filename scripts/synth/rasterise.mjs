// Rasterises generated PDFs with the product's own renderer (dist/input) and resizes like the model's page mode.
// Usage: node scripts/synth/rasterise.mjs DIR [--dpi 150] [--fit 928x1280] [--degrade P] [--seed S]
// For every DIR/doc-XXXXX.pdf without pages yet, writes DIR/doc-XXXXX-pN.png (8-bit grey) and records in
// DIR/doc-XXXXX.raster.json the pixels-per-point scale of each page, so the trainer can map the
// generator's point boxes onto pixels. One node process handles the whole folder (startup is paid once).
// --degrade P makes a share P of the documents look scanned (chosen per document from --seed and its name):
// each page gets some of a slight rotation (recorded as `rotate`, degrees clockwise about the page centre, so the
// trainer can turn the boxes with it), blur, sensor noise and JPEG compression.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { degrade, hash, random } from "./degrade.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { openDocument } = await import(path.join(root, "dist/input/index.js"));

function parseArgs(argv) {
  const args = { dir: undefined, dpi: 150, fit: "928x1280", degrade: 0, seed: 1 };
  for (let i = 2; i < argv.length; i++) {
    if (argv[i] === "--dpi") args.dpi = Number(argv[++i]);
    else if (argv[i] === "--fit") args.fit = argv[++i];
    else if (argv[i] === "--degrade") args.degrade = Number(argv[++i]);
    else if (argv[i] === "--seed") args.seed = Number(argv[++i]);
    else args.dir = argv[i];
  }
  if (!args.dir) throw new Error("usage: rasterise.mjs DIR [--dpi 150] [--fit WxH] [--degrade P] [--seed S]");
  const [w, h] = args.fit.split("x").map(Number);
  return { ...args, fitWidth: w, fitHeight: h };
}

const args = parseArgs(process.argv);
const pdfs = fs
  .readdirSync(args.dir)
  .filter((f) => /^doc-\d+\.pdf$/.test(f))
  .sort();
let done = 0;
for (const file of pdfs) {
  const base = path.join(args.dir, file.replace(/\.pdf$/, ""));
  if (fs.existsSync(base + ".raster.json")) continue;
  const doc = await openDocument(path.join(args.dir, file));
  const pages = [];
  const rng = random(hash(`${args.seed}:${file}`));
  const scanned = rng.next() < args.degrade;
  try {
    for (let n = 1; n <= doc.pageCount; n++) {
      const page = await doc.renderPage(n, { dpi: args.dpi });
      // The page mode fits the page inside fitWidth×fitHeight keeping its aspect ratio (then pads): same here.
      const factor = Math.min(args.fitWidth / page.width, args.fitHeight / page.height);
      const width = Math.round(page.width * factor),
        height = Math.round(page.height * factor);
      const grey = sharp(page.data, { raw: { width: page.width, height: page.height, channels: 3 } })
        .resize(width, height, { fit: "fill", kernel: "cubic" }) // as src/vision/preprocess.ts
        .greyscale();
      const { png, rotate } = scanned
        ? await degrade(await grey.raw().toBuffer(), width, height, rng)
        : { png: await grey.toColourspace("b-w").png({ compressionLevel: 3 }).toBuffer(), rotate: 0 };
      const out = `${base}-p${n}.png`;
      fs.writeFileSync(out + ".tmp", png);
      fs.renameSync(out + ".tmp", out);
      pages.push({
        png: path.basename(out),
        width,
        height,
        scaleX: (page.scale * width) / page.width,
        scaleY: (page.scale * height) / page.height,
        ...(rotate ? { rotate } : {}),
      });
    }
  } finally {
    await doc.close();
  }
  fs.writeFileSync(base + ".raster.json", JSON.stringify({ dpi: args.dpi, fit: [args.fitWidth, args.fitHeight], pages }));
  done++;
  if (done % 50 === 0) process.stderr.write(`rasterised ${done} documents\n`);
}
process.stderr.write(`rasterised ${done} documents in ${args.dir}\n`);
