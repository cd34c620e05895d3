// `ocr render` writes the model's input pixels as PNGs; `ocr info` describes a document; `ocr bench` lists targets.
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { ocr } from "../helpers/cli.js";
import { fixture, tempDir } from "../helpers/paths.js";
import { openDocument } from "../../src/input/index.js";

const tmp = tempDir("ocr-render-");
afterAll(tmp.cleanup);

describe("ocr render", () => {
  it("writes page-NNNN.png with exactly the pixels openDocument renders", async () => {
    const out = path.join(tmp.dir, "pages");
    const r = await ocr(["render", fixture("multi_page.pdf"), "-o", out, "--dpi", "60", "--pages", "2,4-"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split("\n").filter(Boolean)).toEqual(["page-0002.png", "page-0004.png", "page-0005.png"].map((f) => path.join(out, f)));
    expect(readdirSync(out).sort()).toEqual(["page-0002.png", "page-0004.png", "page-0005.png"]);
    const png = await sharp(path.join(out, "page-0004.png")).raw().toBuffer({ resolveWithObject: true });
    expect(png.info).toMatchObject({ width: 496, height: 702, channels: 3 });
    const doc = await openDocument(fixture("multi_page.pdf"));
    const page = await doc.renderPage(4, { dpi: 60 });
    await doc.close();
    expect(png.data.equals(page.data)).toBe(true);
  });

  it("renders images at their own size and reports bad input with exit 1", async () => {
    const out = path.join(tmp.dir, "img");
    const ok = await ocr(["render", fixture("table.png"), "-o", out]);
    expect(ok.exitCode).toBe(0);
    expect((await sharp(path.join(out, "page-0001.png")).metadata()).width).toBe(503);
    const bad = await ocr(["render", fixture("PROVENANCE.md"), "-o", out]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toBe(`ocr: ${fixture("PROVENANCE.md")}: looks like a text file, not a PDF or image\n`);
  });

  it("--layout draws a parse record's blocks over the page: a box in the role's colour, lines, reading order", async () => {
    const out = path.join(tmp.dir, "layout");
    const record = {
      schema: "ocr-document/2",
      pages: [
        {
          page: 1,
          width: 1006,
          height: 360,
          blocks: [
            { type: "heading", level: 2, text: "T", bbox: [20, 20, 400, 60], lines: [{ text: "T", bbox: [20, 20, 400, 60] }] },
            { type: "table", text: "", bbox: [20, 100, 900, 340] },
          ],
        },
      ],
    };
    const file = path.join(tmp.dir, "record.json");
    writeFileSync(file, JSON.stringify(record));
    const r = await ocr(["render", fixture("table.png"), "-o", out, "--layout", file]);
    expect(r.exitCode).toBe(0);
    const { data, info } = await sharp(path.join(out, "page-0001.png")).raw().toBuffer({ resolveWithObject: true });
    const plain = await sharp(fixture("table.png")).removeAlpha().raw().toBuffer();
    // the record's page is twice the image: the heading's box, scaled to [10, 10, 200, 30], has its left edge drawn
    // in the heading colour (#e5534b) below the label (whose glyphs depend on the fonts the machine has)
    const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
    expect(at(10, 25)).toEqual([0xe5, 0x53, 0x4b]);
    expect(data.equals(plain)).toBe(false);
    const bad = await ocr(["render", fixture("table.png"), "-o", out, "--layout", fixture("PROVENANCE.md")]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toBe(`ocr: --layout ${fixture("PROVENANCE.md")}: is not JSON\n`);
  });

  it("--layout without a file parses the pages first (here with the text engine) and draws what it found", async () => {
    const out = path.join(tmp.dir, "layout-parse");
    const r = await ocr(["render", fixture("multi_page.pdf"), "-o", out, "--dpi", "60", "--pages", "2", "--layout", "--engine", "text"]);
    expect(r.exitCode).toBe(0);
    const drawn = await sharp(path.join(out, "page-0002.png")).removeAlpha().raw().toBuffer();
    const doc = await openDocument(fixture("multi_page.pdf"));
    const page = await doc.renderPage(2, { dpi: 60 });
    await doc.close();
    expect(drawn.length).toBe(page.data.length);
    expect(drawn.equals(page.data)).toBe(false);
  });

  it("requires an output folder", async () => {
    const r = await ocr(["render", fixture("table.png")]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/required option '-o, --output-dir <dir>' not specified/);
  });
});

describe("ocr info", () => {
  it("prints page sizes, text layers and metadata as JSON", async () => {
    const r = await ocr(["info", fixture("multi_page.pdf"), "--json"]);
    expect(r.exitCode).toBe(0);
    const info = JSON.parse(r.stdout);
    expect(info).toMatchObject({ kind: "pdf", pageCount: 5 });
    expect(info.pages[0]).toEqual({ page: 1, width: 595.2, height: 841.92, unit: "pt", hasTextLayer: true });
    const scanned = JSON.parse((await ocr(["info", fixture("scanned_page.pdf"), "--json"])).stdout);
    expect(scanned.pages[0].hasTextLayer).toBe(false);
  });

  it("prints a readable summary", async () => {
    const r = await ocr(["info", fixture("table.png")]);
    expect(r.stdout).toContain("  type: png\n  pages: 1\n  page 1: 503 x 180 px, no text layer\n");
  });
});

describe("ocr bench", () => {
  it("is a command group that lists its benchmarks", async () => {
    const r = await ocr(["bench"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/available benchmarks|no benchmarks are registered/);
  });
});
