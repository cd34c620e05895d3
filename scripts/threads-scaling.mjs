// Issue 21's thread scaling: `ocr parse` over the same documents with each --threads value in turn (no --jobs: a
// batch of several documents reads one per thread), in one run of this script. Prints each run's wall clock, pages
// per minute, CPU seconds and peak RSS (from /proc of the child), its pages per minute against the first row's, and
// whether its Markdown is byte for byte the first row's. The issue asks for two threads >= 1.7x one thread's pages
// per minute. Needs npm run build.
//
//   node scripts/threads-scaling.mjs [--threads 1,2] [--model DIR] [--pages LIST] (--files-from LIST | FILE ...)
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: o, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    threads: { type: "string", default: "1,2" },
    model: { type: "string" },
    "files-from": { type: "string" },
    pages: { type: "string" },
  },
});
if (!o["files-from"] && positionals.length === 0) {
  console.error("usage: node scripts/threads-scaling.mjs [--threads 1,2] [--model DIR] [--pages LIST] (--files-from LIST | FILE ...)");
  process.exit(2);
}
const inputs = o["files-from"] ? ["--files-from", o["files-from"]] : positionals;

/** Runs the command; resolves to its exit code, wall clock, CPU seconds (children's rusage) and peak RSS. */
function timed(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // /usr/bin/time would be one more dependency; GNU time's format is read from its stderr where it exists
    const child = spawn("/usr/bin/time", ["-f", "TIMES %U %S %M", process.execPath, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const m = err.match(/TIMES ([\d.]+) ([\d.]+) (\d+)/);
      resolve({
        code,
        err,
        wall: (performance.now() - started) / 1000,
        cpu: m ? Number(m[1]) + Number(m[2]) : NaN,
        rssMiB: m ? Number(m[3]) / 1024 : NaN,
      });
    });
  });
}

/** Every NAME.md under `dir`, by relative path, and the number of pages in the NAME.json files. */
function outputs(dir) {
  const md = new Map();
  let pages = 0;
  for (const f of readdirSync(dir, { recursive: true }).map(String).sort()) {
    if (f.endsWith(".md")) md.set(f, readFileSync(path.join(dir, f), "utf8"));
    else if (f.endsWith(".json")) pages += JSON.parse(readFileSync(path.join(dir, f), "utf8")).pages.length;
  }
  return { md, pages };
}

const rows = [];
let first;
for (const t of o.threads.split(",").map(Number)) {
  const out = mkdtempSync(path.join(tmpdir(), "ocr-threads-"));
  try {
    const args = [path.join(root, "bin/ocr.js"), "parse", ...inputs, "-o", out, "--format", "md,json", "--threads", String(t), "-q"];
    if (o.model) args.push("--model", o.model);
    if (o.pages) args.push("--pages", o.pages);
    const r = await timed(args);
    if (r.code !== 0 && r.code !== 1)
      throw new Error(`ocr parse --threads ${t} exited ${r.code}: ${r.err.trim().split("\n").slice(-3).join(" | ")}`);
    const got = outputs(out);
    first ??= got;
    const same = got.md.size === first.md.size && [...got.md].every(([k, v]) => first.md.get(k) === v);
    rows.push({ threads: t, ...r, pages: got.pages, ppm: (got.pages / r.wall) * 60, same });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
console.log(`ocr parse ${inputs.join(" ")} --threads N (no --jobs), one run each`);
console.log("threads  pages  wall s  pages/min  x first  CPU s  peak RSS MiB  Markdown as the first");
for (const r of rows)
  console.log(
    [
      String(r.threads).padStart(7),
      String(r.pages).padStart(6),
      r.wall.toFixed(1).padStart(7),
      r.ppm.toFixed(1).padStart(10),
      (r.ppm / rows[0].ppm).toFixed(2).padStart(8),
      r.cpu.toFixed(1).padStart(6),
      Math.round(r.rssMiB).toString().padStart(13),
      r.same ? "  same" : "  DIFFERENT",
    ].join(""),
  );
