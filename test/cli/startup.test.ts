// What `ocr parse` loads before it reads a page: dependencies a run does not use load when first used (issue 21,
// "a cold start that does not pay for what the run never uses"): sharp (libvips), the hub client, fast-glob and
// the progress bars cost ~175 ms of the CLI's start-up together.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { bin } from "../helpers/cli.js";
import { repoRoot } from "../helpers/paths.js";

const tmp = mkdtempSync(path.join(os.tmpdir(), "ocr-startup-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs `ocr ARGS` recording the modules it loads; returns its exit code and their URLs. */
async function loads(name: string, args: string[]): Promise<{ exitCode: number; urls: string[] }> {
  const file = path.join(tmp, `${name}.txt`);
  const hook = path.join(repoRoot, "test/helpers/record-loads.mjs");
  const r = await execa(process.execPath, ["--import", hook, bin, ...args], {
    cwd: repoRoot,
    reject: false,
    env: { CI: "1", OCR_TEST_LOADS: file },
  });
  return { exitCode: r.exitCode ?? -1, urls: readFileSync(file, "utf8").trim().split("\n") };
}

const LAZY = /\/node_modules\/(sharp|@huggingface\/hub|fast-glob|cli-progress)\//;

describe("start-up", () => {
  it("a parse of a PDF loads neither sharp, nor the hub client, nor fast-glob, nor the progress bars", async () => {
    const { exitCode, urls } = await loads("pdf", [
      "parse",
      "fixtures/docs/multi_page.pdf",
      "--pages",
      "1",
      "--engine",
      "text",
      "--stdout",
    ]);
    expect(exitCode).toBe(0);
    // (the recording works: the CLI and every engine's module are in it)
    expect(urls.some((u) => u.endsWith("/dist/cli/index.js"))).toBe(true);
    expect(urls.some((u) => u.endsWith("/dist/engines/server/engine.js"))).toBe(true);
    expect(urls.filter((u) => LAZY.test(u))).toEqual([]);
  });

  it("a pattern loads fast-glob when it is read", async () => {
    const { exitCode, urls } = await loads("glob", [
      "parse",
      "fixtures/docs/multi_*.pdf",
      "--pages",
      "1",
      "--engine",
      "text",
      "-o",
      path.join(tmp, "out"),
    ]);
    expect(exitCode).toBe(0);
    expect(urls.some((u) => /\/node_modules\/fast-glob\//.test(u))).toBe(true);
  });
});
