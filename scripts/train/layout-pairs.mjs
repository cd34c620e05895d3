// Training pairs and page-level scores for the learned reading order (src/layout/learned.ts) from the real-document
// corpus: each page's detected lines (extract-lines.mjs's units or --boxes-only boxes, the boxes the product orders) take the reading
// order of the truth lines they own (data.py's rule: a unit owns a truth line when it covers at least half of it;
// a unit's place is its first owned line; units owning none are context, never labelled).
//
//   node scripts/train/layout-pairs.mjs pairs DIR OUT.bin [--max-pairs-per-page 4000] [--seed 1]
//     writes OUT.bin: float32 rows [features(a,b) | features(b,a) | label(a before b)], and OUT.bin.json
//   node scripts/train/layout-pairs.mjs score DIR [--model FILE] [--pages] [--margins 0,1,2,5]
//     (--margins: the learned order at each margin, model.margin aside)
//     prints, over DIR's pages, XY-cut's and (with --model) the learned order's agreement with the truth:
//     pairs in the right order, truth-consecutive lines read consecutively, pages read entirely right.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { PAIR_FEATURES, gapCrossers, linesBetween, pageContext, pairFeatures, PairOrderScorer, parsePairOrderModel } = await import(
  path.join(root, "dist/layout/learned.js")
);

const [mode, dir, out] = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
if (!["pairs", "score"].includes(mode) || !dir || (mode === "pairs" && !out)) {
  console.error("usage: layout-pairs.mjs pairs DIR OUT.bin [--max-pairs-per-page N] [--seed N] | score DIR [--model FILE]");
  process.exit(2);
}

/** The axis-aligned box around `box` turned `degrees` clockwise (y down) about (cx, cy): data.py's _turn. */
function turn(box, degrees, cx, cy) {
  const a = (degrees * Math.PI) / 180,
    c = Math.cos(a),
    s = Math.sin(a);
  const xs = [],
    ys = [];
  for (const [x, y] of [
    [box[0], box[1]],
    [box[2], box[1]],
    [box[0], box[3]],
    [box[2], box[3]],
  ]) {
    xs.push(cx + (x - cx) * c - (y - cy) * s);
    ys.push(cy + (x - cx) * s + (y - cy) * c);
  }
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

const overlap = (a, b) =>
  Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0])) * Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
const area = (b) => Math.max(0, b[2] - b[0]) * Math.max(0, b[3] - b[1]);

/** alignment.py's multi_column: at least 5 body lines wholly left of the middle beside 5 wholly right of it. */
function multiColumn(page) {
  const mid = page.width / 2;
  const body = page.lines.filter((l) => !["header", "footer", "pagenum"].includes(l.kind)).map((l) => l.box);
  const left = body.filter((b) => b[2] < mid),
    right = body.filter((b) => b[0] > mid);
  return left.filter((b) => right.some((r) => r[1] < b[3] && r[3] > b[1])).length >= 5 && right.length >= 5;
}

/** Every page of DIR with units: {lines (Extent), place (truth index or -1), width, height, id}. */
function* pages(dir) {
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => /^doc-\d+\.(?:lines|boxes)\.json$/.test(f))
    .sort()) {
    const base = path.join(dir, file.replace(/\.(?:lines|boxes)\.json$/, ""));
    // a document with both is read once, from its .lines.json
    if (file.endsWith(".boxes.json") && fs.existsSync(base + ".lines.json")) continue;
    if (!fs.existsSync(base + ".json") || !fs.existsSync(base + ".raster.json")) continue;
    const truth = JSON.parse(fs.readFileSync(base + ".json", "utf8"));
    const raster = JSON.parse(fs.readFileSync(base + ".raster.json", "utf8"));
    const lines = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));
    for (const [k, lp] of lines.pages.entries()) {
      const tp = truth.pages[k],
        rp = raster.pages[k];
      if (!tp || !rp || !lp.units?.length) continue;
      let boxes = tp.lines.map((l) => [l.box[0] * rp.scaleX, l.box[1] * rp.scaleY, l.box[2] * rp.scaleX, l.box[3] * rp.scaleY]);
      if (rp.rotate) boxes = boxes.map((b) => turn(b, rp.rotate, rp.width / 2, rp.height / 2));
      // the lines as XY-cut gives them (a box over a column gutter cut in two, as the product's units are), in its order
      // (with the page's pictures and rules where extract-lines stored them: they take part in XY-cut's order)
      const extent = (b) => ({ xMin: b[0], yMin: b[1], xMax: b[2], yMax: b[3] });
      const ctx = pageContext(
        lp.units.map((u) => extent(u.box)),
        {
          width: lp.width ?? rp.width,
          height: lp.height ?? rp.height,
          pictures: (lp.pictures ?? []).map(extent),
          rules: (lp.rules ?? []).map(extent),
        },
      );
      const units = ctx.lines;
      const place = new Int32Array(units.length).fill(-1);
      boxes.forEach((gb, g) => {
        let best = -1,
          bestOv = 0;
        units.forEach((u, i) => {
          const ov = overlap(gb, [u.xMin, u.yMin, u.xMax, u.yMax]);
          if (ov > bestOv) (best = i), (bestOv = ov);
        });
        if (best >= 0 && bestOv >= 0.5 * area(gb) && place[best] < 0) place[best] = g;
      });
      yield {
        id: `${path.basename(base)}-p${k + 1}`,
        ctx,
        lines: units,
        place,
        width: rp.width,
        height: rp.height,
        scan: Boolean(rp.scan),
        columns: multiColumn(tp),
      };
    }
  }
}

/** Deterministic PRNG (mulberry32). */
function rng(seed) {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r ^= r + Math.imul(r ^ (r >>> 7), 61 | r);
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

if (mode === "pairs") {
  const cap = Number(opt("--max-pairs-per-page", 4000));
  const random = rng(Number(opt("--seed", 1)));
  const fd = fs.openSync(out + ".tmp", "w");
  const row = new Float32Array(2 * PAIR_FEATURES + 1);
  let rows = 0,
    nPages = 0,
    positives = 0;
  for (const p of pages(dir)) {
    const labelled = [...p.place.keys()].filter((i) => p.place[i] >= 0);
    if (labelled.length < 2) continue;
    nPages++;
    const ctx = p.ctx;
    // every pair near in the truth's order or read in the other order by XY-cut, then others at random up to the cap
    const sorted = [...labelled].sort((a, b) => p.place[a] - p.place[b]);
    const pos = new Map(sorted.map((u, i) => [u, i]));
    const near = [],
      far = [];
    for (let i = 0; i < labelled.length; i++)
      for (let j = i + 1; j < labelled.length; j++) {
        const a = labelled[i],
          b = labelled[j];
        const truthFirst = p.place[a] < p.place[b];
        const xyFirst = ctx.rank[a] < ctx.rank[b];
        (Math.abs(pos.get(a) - pos.get(b)) <= 3 || truthFirst !== xyFirst ? near : far).push([a, b]);
      }
    for (let i = far.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [far[i], far[j]] = [far[j], far[i]];
    }
    const chosen = [...near.slice(0, cap), ...far.slice(0, Math.max(0, cap - near.length))];
    for (const [a0, b0] of chosen) {
      // either order of the two, so both labels occur
      const [a, b] = random() < 0.5 ? [a0, b0] : [b0, a0];
      const between = linesBetween(ctx, a, b),
        crossers = gapCrossers(ctx, a, b);
      pairFeatures(ctx, a, b, row, 0, between, crossers);
      pairFeatures(ctx, b, a, row, PAIR_FEATURES, between, crossers);
      row[2 * PAIR_FEATURES] = p.place[a] < p.place[b] ? 1 : 0;
      positives += row[2 * PAIR_FEATURES];
      fs.writeSync(fd, Buffer.from(row.buffer));
      rows++;
    }
  }
  fs.closeSync(fd);
  fs.renameSync(out + ".tmp", out);
  fs.writeFileSync(
    out + ".json",
    JSON.stringify({ dir: path.resolve(dir), features: PAIR_FEATURES, rows, pages: nPages, positives }, null, 1) + "\n",
  );
  console.log(`${rows} pairs from ${nPages} pages (${((100 * positives) / Math.max(1, rows)).toFixed(1)} % "a before b") -> ${out}`);
} else {
  const model = opt("--model");
  const margins = opt("--margins") ? opt("--margins").split(",").map(Number) : null;
  const scorer = model ? new PairOrderScorer(parsePairOrderModel(JSON.parse(fs.readFileSync(model, "utf8")), model)) : undefined;
  const groups = {};
  const add = (group, name, s) => {
    const g = (groups[group] ??= {});
    const t = (g[name] ??= { pairs: 0, right: 0, links: 0, kept: 0, pages: 0, exact: 0 });
    for (const k of Object.keys(s)) t[k] += s[k];
  };
  /** Agreement of an order (unit indices) with the truth places, over labelled units. */
  const agree = (order, place) => {
    const seq = order.filter((u) => place[u] >= 0).map((u) => place[u]);
    let pairs = 0,
      right = 0;
    for (let i = 0; i < seq.length; i++) for (let j = i + 1; j < seq.length; j++) pairs++, seq[i] < seq[j] && right++;
    const rankOf = new Map([...seq].sort((a, b) => a - b).map((v, i) => [v, i]));
    let kept = 0;
    for (let i = 1; i < seq.length; i++) if (rankOf.get(seq[i]) === rankOf.get(seq[i - 1]) + 1) kept++;
    return { pairs, right, links: Math.max(0, seq.length - 1), kept, pages: 1, exact: kept === seq.length - 1 ? 1 : 0 };
  };
  for (const p of pages(dir)) {
    if ([...p.place].filter((v) => v >= 0).length < 2) continue;
    const index = new Map(p.lines.map((b, i) => [b, i]));
    const orders = { "xy-cut": p.lines.map((_, i) => i) };
    if (scorer && margins) for (const m of margins) orders[`m=${m}`] = scorer.orderContext(p.ctx, m).map((b) => index.get(b));
    else if (scorer) orders.learned = scorer.orderContext(p.ctx).map((b) => index.get(b));
    if (process.argv.includes("--pages")) {
      const a = agree(orders["xy-cut"], p.place),
        b = orders.learned ? agree(orders.learned, p.place) : null;
      console.log(
        `${p.id.padEnd(18)} ${p.columns ? "multi" : "one  "} ${p.lines.length} lines  xy-cut ${a.kept}/${a.links}${b ? `  learned ${b.kept}/${b.links}` : ""}`,
      );
    }
    for (const [name, order] of Object.entries(orders)) {
      const s = agree(order, p.place);
      add("all", name, s);
      add(p.columns ? "multi-column" : "one column", name, s);
      if (p.scan) add("scan-like", name, s);
    }
  }
  const pct = (a, b) => (b ? ((100 * a) / b).toFixed(1) : "-").padStart(6);
  console.log("pages          order     pairs right  consecutive kept  pages exact");
  for (const [group, byName] of Object.entries(groups))
    for (const [name, t] of Object.entries(byName))
      console.log(
        `${group.padEnd(14)} ${name.padEnd(8)} ${pct(t.right, t.pairs)} %         ${pct(t.kept, t.links)} %     ${pct(t.exact, t.pages)} % of ${t.pages}`,
      );
}
