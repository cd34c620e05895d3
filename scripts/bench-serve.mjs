#!/usr/bin/env node
// Benchmark of `ocr serve` on loopback: pages per minute that `ocr parse --server` gets at --concurrency 1, 2 and 4.
// Usage: node scripts/bench-serve.mjs [--json] [--doc FILE] [--pages 1-4] [--concurrency 1,2,4] [--model DIR]
//                                     [--threads N] [--max-tokens N]
// Starts `ocr serve --port 0 --max-requests <largest concurrency>` with the model (default models/default), parses one
// page untimed (warm-up), then parses the same pages once per concurrency (--format json into a temporary folder) and
// reads each run's pages and elapsed time from its run-end event. Needs `npm run build`. Results on stdout, progress
// on stderr. Every request stays on 127.0.0.1; the server is stopped with SIGTERM at the end.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cliArgs } from "./bench-common.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = path.join(repo, "bin/ocr.js");
const { flag, option, list } = cliArgs();
const json = flag("--json");
const doc = path.resolve(option("--doc", path.join(repo, "fixtures/docs/multi_page.pdf")));
const pages = option("--pages", "1-4");
const levels = list(option("--concurrency", "1,2,4"));
const model = option("--model", undefined);
const threads = option("--threads", undefined);
const maxTokens = option("--max-tokens", undefined);
const log = (msg) => process.stderr.write(`bench-serve: ${msg}\n`);

if (!existsSync(path.join(repo, "dist/cli/index.js"))) {
  log("dist/ is missing: run `npm run build` first");
  process.exit(3);
}
if (!existsSync(doc)) {
  log(`${doc}: no such file`);
  process.exit(2);
}
if (levels.length === 0 || levels.some((c) => !Number.isInteger(c) || c < 1 || c > 64)) {
  log("--concurrency takes a comma list of integers from 1 to 64");
  process.exit(2);
}

const modelArgs = [
  ...(model ? ["--model", model] : []),
  ...(threads ? ["--threads", threads] : []),
  ...(maxTokens ? ["--max-tokens", maxTokens] : []),
];
const server = spawn(
  process.execPath,
  [bin, "serve", "--port", "0", "--max-requests", String(Math.max(...levels)), "--quiet", ...modelArgs],
  { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, CI: "1" } },
);
let serverLog = "";
server.stderr.on("data", (c) => (serverLog += c.toString()));
const stopServer = () =>
  new Promise((resolve) => {
    if (server.exitCode !== null) return resolve();
    server.once("exit", () => resolve());
    server.kill("SIGTERM");
    setTimeout(() => server.kill("SIGKILL"), 60_000).unref();
  });
process.on("SIGINT", () => void stopServer().then(() => process.exit(130)));

const url = await new Promise((resolve, reject) => {
  const deadline = setTimeout(() => reject(new Error(`ocr serve did not start within 180 s:\n${serverLog}`)), 180_000);
  const poll = setInterval(() => {
    const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serverLog);
    if (m || server.exitCode !== null) {
      clearInterval(poll);
      clearTimeout(deadline);
      if (m) resolve(m[1]);
      else reject(new Error(`ocr serve exited (${server.exitCode}):\n${serverLog}`));
    }
  }, 100);
}).catch(async (error) => {
  log(error.message);
  await stopServer();
  process.exit(3);
});

/** One `ocr parse --server` run; resolves to its run-end summary. */
function parse(concurrency, pageSpec) {
  const out = mkdtempSync(path.join(os.tmpdir(), "ocr-bench-serve-"));
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        bin,
        "parse",
        doc,
        "--server",
        url,
        "--concurrency",
        String(concurrency),
        "--pages",
        pageSpec,
        "--format",
        "json",
        "-o",
        out,
        "--jsonl",
        "--server-retries",
        "2",
      ],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CI: "1" } },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c.toString()));
    child.stderr.on("data", (c) => (stderr += c.toString()));
    child.on("close", (code) => {
      rmSync(out, { recursive: true, force: true });
      const end = stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .find((e) => e.type === "run-end");
      if (code !== 0 || !end) reject(new Error(`ocr parse --server exited ${code}:\n${stderr}`));
      else resolve(end.summary);
    });
  });
}

const rows = [];
try {
  log(`ocr serve at ${url}; warm-up (page 1, untimed)`);
  await parse(1, "1");
  for (const c of levels) {
    log(`--concurrency ${c}: pages ${pages} of ${path.basename(doc)}`);
    const s = await parse(c, pages);
    rows.push({ concurrency: c, pages: s.pages, seconds: s.elapsedMs / 1000, pagesPerMinute: (s.pages * 60_000) / s.elapsedMs });
  }
} catch (error) {
  log(error.message);
  await stopServer();
  process.exit(1);
}
await stopServer();

const result = {
  server: url,
  document: path.relative(repo, doc),
  pages,
  model: model ?? "models/default",
  cpus: os.availableParallelism(),
  rows,
};
if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else {
  process.stdout.write(
    `ocr serve on loopback (${result.model}, ${result.cpus} CPUs): ocr parse --server, pages ${pages} of ${result.document}\n\n`,
  );
  process.stdout.write("concurrency  pages  seconds  pages/min\n");
  for (const r of rows) {
    process.stdout.write(
      `${String(r.concurrency).padStart(11)}  ${String(r.pages).padStart(5)}  ${r.seconds.toFixed(1).padStart(7)}  ${r.pagesPerMinute.toFixed(1).padStart(9)}\n`,
    );
  }
}
