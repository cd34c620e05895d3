// Resident memory of `ocr parse` page by page: runs it on one document in a child process (--jsonl), samples the
// child's /proc/PID/status every 20 ms and prints, for each page as it finishes, the highest RSS sampled while it
// was being read, the peak so far (VmHWM, what /usr/bin/time -v calls maximum resident set size) and RSS at its end.
// Not a timed test: the figures do not depend on the machine's load. With --baseline FILE (an earlier --json) each
// page's figures are printed beside the earlier run's. Needs npm run build.
//
//   node scripts/page-memory.mjs FILE [--pages 1-5] [--threads 1] [--model DIR] [--mode M] [--max-tokens N] [--json OUT]
//     [--baseline OLD.json]
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { onJsonLines, procMemory } from "./bench-common.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: o, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    pages: { type: "string" },
    threads: { type: "string", default: "1" },
    model: { type: "string" },
    mode: { type: "string" },
    "max-tokens": { type: "string" },
    json: { type: "string" },
    baseline: { type: "string" },
  },
});
const fail = (message) => {
  process.stderr.write(`page-memory: ${message}\n`);
  process.exit(2);
};
if (positionals.length !== 1)
  fail(
    "give one document (usage: node scripts/page-memory.mjs FILE [--pages 1-5] [--mode M] [--max-tokens N] [--json OUT] [--baseline OLD.json])",
  );
const file = positionals[0];
if (!existsSync(file)) fail(`${file}: no such file`);
if (!existsSync(path.join(root, "dist/index.js"))) fail("run `npm run build` first (dist/ is missing)");
let baseline;
if (o.baseline) {
  try {
    baseline = JSON.parse(readFileSync(o.baseline, "utf8"));
  } catch (e) {
    fail(`${o.baseline}: ${e.message}`);
  }
  if (!Array.isArray(baseline?.perPage)) fail(`${o.baseline}: not a page-memory --json file (no "perPage" list)`);
}

const out = mkdtempSync(path.join(tmpdir(), "ocr-page-memory-"));
const args = [path.join(root, "bin/ocr.js"), "parse", file, "-o", out, "--jsonl", "--threads", o.threads];
if (o.pages) args.push("--pages", o.pages);
if (o.model) args.push("--model", o.model);
if (o.mode) args.push("--mode", o.mode);
if (o["max-tokens"]) args.push("--max-tokens", o["max-tokens"]);
const child = spawn(process.execPath, args, { env: { ...process.env, CI: "1" }, stdio: ["ignore", "pipe", "pipe"] });
const status = () => {
  const m = procMemory(child.pid);
  return m && { rss: Math.round(m.rss), hwm: Math.round(m.hwm) };
};
let windowPeak = 0;
let last = { rss: NaN, hwm: NaN };
const sample = () => {
  const s = status();
  // a child that has exited (a zombie) has no VmRSS left to read
  if (!s || !Number.isFinite(s.rss)) return;
  last = s;
  windowPeak = Math.max(windowPeak, s.rss);
};
const timer = setInterval(sample, 20);
const pages = [];
let stderr = "";
// resident memory once the model has loaded, before the document's first page
let loadedMiB;
onJsonLines(child.stdout, (e) => {
  if (e.type === "document-start" && loadedMiB === undefined) {
    sample();
    loadedMiB = last.rss;
    windowPeak = last.rss;
  }
  if (e.type !== "page-done") return;
  sample();
  pages.push({ page: e.page, peakMiB: windowPeak, hwmMiB: last.hwm, endMiB: last.rss, ...(e.error ? { error: e.error } : {}) });
  windowPeak = last.rss;
});
child.stderr.on("data", (d) => (stderr += d));
const code = await new Promise((resolve) => child.on("close", resolve));
clearInterval(timer);
rmSync(out, { recursive: true, force: true });
if (code !== 0) fail(`ocr parse exited with ${code}: ${stderr.trim().split("\n").slice(-3).join(" / ")}`);

const result = {
  file: path.basename(file),
  pages: o.pages ?? "all",
  threads: Number(o.threads),
  ...(o.mode ? { mode: o.mode } : {}),
  loadedMiB,
  peakMiB: last.hwm,
  growthMiB: pages.length > 1 ? pages.at(-1).hwmMiB - pages[0].hwmMiB : 0,
  perPage: pages,
};
const pad = (v, n) => String(v).padStart(n);
const old = (i, k) => (baseline?.perPage?.[i]?.[k] !== undefined ? pad(baseline.perPage[i][k], 8) : "");
console.log(
  `${result.file} pages ${result.pages}, --threads ${result.threads}${o.mode ? `, --mode ${o.mode}` : ""} (MiB; sampled every 20 ms; peak = VmHWM)`,
);
console.log(`RSS once the model has loaded (at the document's start): ${loadedMiB} MiB`);
console.log(
  `${pad("page", 5)} ${pad("max RSS", 8)} ${pad("peak", 8)} ${pad("RSS end", 8)}${baseline ? ` | before: ${pad("max RSS", 8)} ${pad("peak", 8)} ${pad("RSS end", 8)}` : ""}`,
);
pages.forEach((p, i) => {
  const before = baseline ? ` | ${pad("", 7)} ${old(i, "peakMiB")} ${old(i, "hwmMiB")} ${old(i, "endMiB")}` : "";
  console.log(`${pad(p.page, 5)} ${pad(p.peakMiB, 8)} ${pad(p.hwmMiB, 8)} ${pad(p.endMiB, 8)}${before}${p.error ? `  (${p.error})` : ""}`);
});
console.log(
  `peak ${result.peakMiB} MiB; growth of the peak from the first page to the last: ${result.growthMiB} MiB${baseline ? ` (before: ${baseline.peakMiB}, ${baseline.growthMiB})` : ""}`,
);
if (o.json) writeFileSync(o.json, JSON.stringify(result, null, 2) + "\n");
