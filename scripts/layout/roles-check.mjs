// Running heads and tables told from geometry, against the corpus' truth: for every page of the real-document
// corpus (scripts/corpus/build.mjs), the detector's line units with their truth text (DOC.lines.json, written by
// scripts/train/extract-lines.mjs) go through marginRoles and tablesByGeometry (dist/layout), and each unit takes
// the truth role of the truth line it overlaps most (DOC.json, scaled by DOC.raster.json).
// Usage: node scripts/layout/roles-check.mjs [--corpus DIR] [--show]
//   (DIR: the corpus folder, with train/ and val/; default $OCR_DATA/corpus)
// Prints, for margins: units found as header/footer/page number that the truth marks so, those it does not, and
// those it marks but we miss; for tables (grids found from the boxes alone: units carry no decoder tags): pages
// with truth tables where a table was found, and pages without where one was. --show lists the disagreements.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { dataDefault, requireData } from "../data-dir.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { values: o } = parseArgs({ options: { corpus: { type: "string", default: dataDefault("corpus") }, show: { type: "boolean" } } });
const corpus = requireData(o.corpus, "--corpus", "corpus");
const { marginRoles } = await import(path.join(root, "dist/layout/page.js"));
const { tablesByGeometry } = await import(path.join(root, "dist/layout/table-geometry.js"));

const MARGIN_KINDS = new Set(["header", "footer", "pagenum"]);
const margins = { found: 0, wrong: 0, missed: 0 };
const tables = { truthPages: 0, found: 0, foundWithout: 0 };
const shown = [];

/** The truth kind of the truth line each unit overlaps most (null: none). */
function truthKinds(units, truthLines, raster) {
  const boxes = truthLines.map((l) => [
    l.box[0] * raster.scaleX,
    l.box[1] * raster.scaleY,
    l.box[2] * raster.scaleX,
    l.box[3] * raster.scaleY,
  ]);
  return units.map((u) => {
    let best = null;
    let most = 0;
    boxes.forEach((b, k) => {
      const w = Math.min(u.box[2], b[2]) - Math.max(u.box[0], b[0]);
      const h = Math.min(u.box[3], b[3]) - Math.max(u.box[1], b[1]);
      if (w > 0 && h > 0 && w * h > most) [most, best] = [w * h, truthLines[k].kind];
    });
    return best;
  });
}

let pages = 0;
for (const split of ["train", "val"]) {
  const dir = path.join(corpus, split);
  if (!fs.existsSync(dir)) continue;
  for (const file of fs.readdirSync(dir).sort()) {
    const m = /^(doc-\d+)\.json$/.exec(file);
    if (!m) continue;
    const linesFile = path.join(dir, `${m[1]}.lines.json`),
      rasterFile = path.join(dir, `${m[1]}.raster.json`);
    if (!fs.existsSync(linesFile) || !fs.existsSync(rasterFile)) continue;
    const doc = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));
    const detected = JSON.parse(fs.readFileSync(linesFile, "utf8"));
    const raster = JSON.parse(fs.readFileSync(rasterFile, "utf8"));
    detected.pages.forEach((page, k) => {
      const truth = doc.pages[k],
        scale = raster.pages[k];
      if (!truth || !scale) return;
      pages++;
      const units = page.units.filter((u) => u.text?.trim());
      const kinds = truthKinds(units, truth.lines, scale);
      const where = `${m[1]} p${k + 1}`;
      const boxes = units.map((u) => ({ xMin: u.box[0], yMin: u.box[1], xMax: u.box[2], yMax: u.box[3] }));
      const roles = marginRoles(
        boxes,
        units.map((u) => u.text),
        page.height,
        kinds.map((kind) => kind === "heading"),
      );
      units.forEach((u, i) => {
        const truthMargin = MARGIN_KINDS.has(kinds[i]);
        if (roles.has(i) && truthMargin) margins.found++;
        else if (roles.has(i)) margins.wrong++, shown.push(`margin, not in truth (${kinds[i]}): ${where} | ${u.text.slice(0, 60)}`);
        else if (truthMargin) margins.missed++, shown.push(`margin missed (${kinds[i]}): ${where} | ${u.text.slice(0, 60)}`);
      });
      const lines = boxes.map((box, i) => ({ box, markdown: units[i].text }));
      const found = tablesByGeometry(lines).some((l) => /<table/.test(l.markdown));
      const hasTruth = kinds.includes("table");
      if (hasTruth) tables.truthPages++;
      if (found && hasTruth) tables.found++;
      if (found && !hasTruth) tables.foundWithout++, shown.push(`table, none in truth: ${where}`);
    });
  }
}
if (!pages) {
  process.stderr.write(`roles-check: no corpus pages with line units under ${corpus} (train/, val/)\n`);
  process.exit(2);
}
if (o.show) console.log(shown.join("\n"));
console.log(`${pages} pages of ${corpus}`);
console.log(
  `margins: found ${margins.found} of ${margins.found + margins.missed} truth header/footer/page-number units; ${margins.wrong} found that the truth does not mark`,
);
console.log(
  `tables (grids from the boxes alone): found on ${tables.found} of ${tables.truthPages} pages with truth tables; on ${tables.foundWithout} pages without`,
);
