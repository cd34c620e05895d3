// The layers of src/ (docs/architecture.md): every relative import of src/**/*.ts goes down the table below, never
// up or sideways; the rooms of src/engines import the engines' shared files, never each other; and the Mermaid
// diagram of docs/architecture.md draws exactly the folder-to-folder imports there are. Names keep one meaning each
// (docs/architecture.md, "Names"): "engine" is a page engine, "decoder" the native language decoder.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** Top to bottom; a folder imports only folders of lower rows (its own files too). */
const LAYERS: readonly (readonly string[])[] = [
  ["cli"], // the command line, and src/index.ts (the package's API)
  ["serve", "report"], // `ocr serve`; progress and event reporters
  ["app"], // batch runs: documents, pages, resume, shards, outputs
  ["engines"], // page engines: engines/model, engines/text, engines/server, their seam in engines/*.ts
  ["vision", "server"], // pixels to views and lines; the HTTP client of OCR servers
  ["layout"], // reading order, blocks and roles, tables, a document's pages
  ["output"], // the document schema and its writers
  ["model", "input"], // bundles, tokenizer, checkpoints; documents, pages, rasters
  ["native"], // the native decoder's binding
];

const SRC = path.resolve("src");
const rank = new Map(LAYERS.flatMap((row, i) => row.map((folder) => [folder, i] as const)));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
  );
}

/** Relative module specifiers a file imports or re-exports, static and dynamic. */
function importsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^"'`;]*?\bfrom\s*["']([^"']+)["']/g)) out.push(m[1]!);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*["']([^"']+)["']/g)) out.push(m[1]!);
  for (const m of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) out.push(m[1]!);
  return out.filter((s) => s.startsWith("."));
}

/** "cli", "engines/model", ...: the folder under src/ (engines by room); src/index.ts counts as cli. */
function folderOf(file: string): string {
  const parts = path.relative(SRC, file).split(path.sep);
  if (parts.length === 1) return "cli";
  if (parts[0] === "engines" && parts.length > 2) return `engines/${parts[1]}`;
  return parts[0]!;
}

const layerOf = (folder: string) => folder.split("/")[0]!;

interface Edge {
  from: string;
  to: string;
  file: string;
  spec: string;
}

function edges(): Edge[] {
  const out: Edge[] = [];
  for (const file of sources(SRC)) {
    for (const spec of importsOf(readFileSync(file, "utf8"))) {
      const target = path.resolve(path.dirname(file), spec).replace(/\.js$/, ".ts");
      if (!target.startsWith(SRC + path.sep)) continue;
      const from = folderOf(file);
      const to = folderOf(target);
      if (from !== to) out.push({ from, to, file: path.relative(".", file), spec });
    }
  }
  return out;
}

/** Why an import breaks the layers, or undefined when it goes down. */
function violation(from: string, to: string): string | undefined {
  const a = layerOf(from);
  const b = layerOf(to);
  if (a === "engines" && b === "engines") {
    // the engines' shared files (decoder seam, settings, errors, page) import no room; index.ts registers them all
    if (from !== "engines" && to !== "engines") return "one engine room imports another";
    return undefined;
  }
  const ra = rank.get(a);
  const rb = rank.get(b);
  if (ra === undefined) return `src/${a} is in no layer`;
  if (rb === undefined) return `src/${b} is in no layer`;
  if (ra === rb) return `${a} and ${b} share a layer`;
  if (ra > rb) return `${a} is below ${b}`;
  return undefined;
}

describe("architecture: layers of src/", () => {
  const all = edges();

  it("finds the imports it checks (the parser is not blind)", () => {
    expect(all.length).toBeGreaterThan(100);
    expect(all.some((e) => e.from === "cli" && e.to === "app")).toBe(true);
    expect(importsOf('import a from "./x.js";\nexport { b } from "../y.js";\nimport "./z.js";\nconst c = await import("./w.js");')).toEqual(
      ["./x.js", "../y.js", "./z.js", "./w.js"],
    );
    // an upward import is caught: output importing app, engine importing model, one room importing another
    expect(violation("output", "app")).toMatch(/output is below app/);
    expect(violation("native", "model")).toMatch(/below/);
    expect(violation("engines/server", "engines/model")).toMatch(/room/);
    expect(violation("vision", "server")).toMatch(/share a layer/);
  });

  it("every folder of src/ is in a layer", () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => !rank.has(f))).toEqual([]);
  });

  it("no import goes up or sideways", () => {
    const bad = all.flatMap((e) => {
      // of the engines' shared files, only index.ts (the registry of built-in engines) imports the rooms
      const why =
        e.from === "engines" && e.to.startsWith("engines/") && e.file !== path.join("src", "engines", "index.ts")
          ? "a shared engines file imports a room"
          : violation(e.from, e.to);
      return why ? [`${e.file} imports ${e.spec}: ${why}`] : [];
    });
    expect(bad).toEqual([]);
  });

  it("docs/architecture.md draws exactly the folder imports there are, each allowed, each folder real", () => {
    const doc = readFileSync("docs/architecture.md", "utf8");
    const block = /```mermaid\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block, "docs/architecture.md has a mermaid block").toBeDefined();
    const drawn = new Set<string>();
    const ids = new Map<string, string>();
    // nodes: id["src/folder"]; edges: id --> id
    for (const m of block!.matchAll(/(\w+)\["src\/([\w/]+)"\]/g)) ids.set(m[1]!, m[2]!);
    for (const m of block!.matchAll(/^\s*(\w+)\s*-->\s*(\w+)\s*$/gm)) {
      const from = ids.get(m[1]!);
      const to = ids.get(m[2]!);
      expect(from && to, `edge ${m[1]} --> ${m[2]} names a node without a src/ folder`).toBeTruthy();
      drawn.add(`${from} --> ${to}`);
    }
    for (const folder of ids.values()) expect(readdirSync(path.join(SRC, folder)).length, `src/${folder}`).toBeGreaterThan(0);
    for (const e of drawn) {
      const [from, to] = e.split(" --> ") as [string, string];
      expect(violation(from, to), `drawn edge ${e}`).toBeUndefined();
    }
    const actual = new Set(all.map((e) => `${e.from} --> ${e.to}`));
    expect([...actual].filter((e) => !drawn.has(e)).sort(), "imports the diagram does not draw").toEqual([]);
    expect([...drawn].filter((e) => !actual.has(e)).sort(), "edges drawn with no import behind them").toEqual([]);
  });
});

/** Names a source file declares for export (classes, interfaces, types, functions, constants; not re-exports). */
function exportedNames(text: string): string[] {
  const declaration =
    /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:class|interface|type|function|const|let|enum)\s+([A-Za-z_$][\w$]*)/gm;
  return [...text.matchAll(declaration)].map((m) => m[1]!);
}

/** C++ sources of the native decoder: the addons (native/) and the core (ops/). */
function nativeSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? nativeSources(path.join(dir, e.name)) : /\.(cpp|h|cu|txt)$/.test(e.name) ? [path.join(dir, e.name)] : [],
  );
}

describe("names: one meaning each", () => {
  const exported = sources(SRC).flatMap((file) =>
    exportedNames(readFileSync(file, "utf8")).map((name) => ({ name, folder: folderOf(file), file: path.relative(".", file) })),
  );

  it("finds the names it checks (the parser is not blind)", () => {
    expect(exported.length).toBeGreaterThan(200);
    expect(exported.map((e) => e.name)).toEqual(expect.arrayContaining(["PageEngine", "Decoder", "DecoderError", "DecoderConfig"]));
    const sample = 'export class A {}\nexport async function b() {}\nexport type C = 1;\nexport { D } from "./d.js";';
    expect(exportedNames(sample)).toEqual(["A", "b", "C"]);
  });

  it('"Engine" names only page engines (src/engines), "Decoder" only the native decoder and model.json\'s decoder section', () => {
    const engine = exported.filter((e) => /Engine/.test(e.name) && e.folder !== "engines" && !e.folder.startsWith("engines/"));
    expect(engine.map((e) => `${e.file}: ${e.name}`)).toEqual([]);
    const decoder = exported.filter((e) => /Decoder/.test(e.name) && e.folder !== "native" && e.folder !== "model");
    expect(decoder.map((e) => `${e.file}: ${e.name}`)).toEqual([]);
  });

  it("the native decoder's C++ and its build say decoder, not engine", () => {
    const files = [...nativeSources("native"), ...nativeSources("ops")];
    expect(files.length).toBeGreaterThan(30);
    const said = files.filter((f) => /\bEngine|\bocr_engine|\bModel\b/.test(readFileSync(f, "utf8")));
    expect(said).toEqual([]);
  });
});
