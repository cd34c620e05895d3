// What `npm pack` ships (package.json "files"): what a user runs — the CLI, the compiled library, the native
// decoder's sources for the install script, the default bundle — and none of the tests, fixtures, training code or
// training state.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/paths.js";

let files: string[] = [];
let unpackedSize = 0;

beforeAll(() => {
  // --ignore-scripts: no `prepare` build here; `npm test` has built dist/ already
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: repoRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const [pack] = JSON.parse(out) as { files: { path: string }[]; unpackedSize: number }[];
  files = pack!.files.map((f) => f.path);
  unpackedSize = pack!.unpackedSize;
});

describe("npm pack", () => {
  it("ships the CLI, the library, the native sources and the default bundle", () => {
    for (const f of [
      "package.json",
      "README.md",
      "bin/ocr.js",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/cli/index.js",
      "native/CMakeLists.txt",
      "native/package.json",
      "native/src/addon.cpp",
      "native/bench/addon.cpp",
      "ops/session.cpp",
      "ops/cpu/dispatch.cpp",
      "scripts/native-build-failed.js",
      "docs/bundle.md",
    ])
      expect(files, f).toContain(f);
    // every file of the default bundle but its training state
    const bundle = readdirSync(path.join(repoRoot, "models/default")).map((f) => `models/default/${f}`);
    expect(bundle).toContain("models/default/model.safetensors");
    for (const f of bundle) expect(files, f).toContain(f);
    // every source file the install script's cmake build compiles (both addons: the product and the bench/test one)
    const sources = (dir: string): string[] =>
      readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? sources(`${dir}/${e.name}`) : /\.(cpp|h|cu)$/.test(e.name) ? [`${dir}/${e.name}`] : [],
      );
    for (const f of [...sources("ops"), ...sources("native/src"), ...sources("native/bench")]) expect(files, f).toContain(f);
  });

  it("ships every script and Python module the shipped CLI runs (ocr bench, ocr models convert)", () => {
    const cli = readdirSync(path.join(repoRoot, "src/cli"))
      .map((f) => readFileSync(path.join(repoRoot, "src/cli", f), "utf8"))
      .join("\n");
    const bench = [...cli.matchAll(/runBenchScript\("([^"]+)"/g)].map((m) => `scripts/${m[1]}`);
    expect(bench.length).toBeGreaterThanOrEqual(5);
    // the Python modules they run (`python -m ocr_tools....`), their package __init__.py files and what they import
    const convert = readFileSync(path.join(repoRoot, "src/model/convert.ts"), "utf8");
    const runners = [convert, ...bench.map((f) => readFileSync(path.join(repoRoot, f), "utf8"))].join("\n");
    const modules = [...runners.matchAll(/"(ocr_tools(?:\.\w+)+)"/g)].map((m) => m[1]!);
    expect(modules).toContain("ocr_tools.deepencoder.export_onnx");
    expect(modules).toContain("ocr_tools.bench_decoder");
    const python = new Set<string>();
    const addModule = (name: string) => {
      const file = `python/${name.replace(/\./g, "/")}.py`;
      if (python.has(file)) return;
      python.add(file);
      const parts = name.split(".");
      for (let i = 1; i < parts.length; i++) python.add(`python/${parts.slice(0, i).join("/")}/__init__.py`);
      const text = readFileSync(path.join(repoRoot, file), "utf8");
      for (const m of text.matchAll(/^\s*from (ocr_tools(?:\.\w+)+) import/gm)) addModule(m[1]!);
    };
    for (const m of modules) addModule(m);
    for (const f of python) expect(files, f).toContain(f);
    // and what the bench scripts import from their own folder
    for (const f of bench) {
      const text = readFileSync(path.join(repoRoot, f), "utf8");
      const local = [...text.matchAll(/from "\.\/([\w.-]+\.mjs)"/g)].map((m) => path.posix.join(path.posix.dirname(f), m[1]!));
      for (const dep of local) expect(files, `${f} imports ${dep}`).toContain(dep);
    }
  });

  it("leaves out tests, fixtures, sources, training code and the training checkpoint", () => {
    const banned = files.filter(
      (f) =>
        /^(test|fixtures|src|training|build|node_modules|\.ci)\//.test(f) ||
        /^scripts\/(train|synth|corpus)\//.test(f) ||
        /^python\/(tests|ocr_tools\/(train|synth|corpus|fixtures))\//.test(f) ||
        /__pycache__|\.pyc$/.test(f) ||
        /(^|\/)(ckpt\.pt|train-log\.jsonl)$/.test(f) ||
        f.endsWith(".tsbuildinfo"),
    );
    expect(banned).toEqual([]);
    // the default bundle and the compiled library are most of it: 43 MB with the word lists, not the
    // 14 MB checkpoint on top
    expect(unpackedSize).toBeLessThan(45_000_000);
  });
});
