// `ocr bench serve`: a real (small) run against ocr serve on loopback prints a pages/min row per concurrency.
import { describe, expect, it } from "vitest";
import { ocr } from "../helpers/cli.js";
import { fixture } from "../helpers/paths.js";

describe("ocr bench serve", () => {
  it("prints pages/min at each --concurrency (a blank page keeps it short)", async () => {
    const r = await ocr(["bench", "serve", "--doc", fixture("blank_page.pdf"), "--pages", "1", "--concurrency", "1,2", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as {
      server: string;
      rows: { concurrency: number; pages: number; seconds: number; pagesPerMinute: number }[];
    };
    expect(result.server).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(result.rows.map((row) => [row.concurrency, row.pages])).toEqual([
      [1, 1],
      [2, 1],
    ]);
    for (const row of result.rows) expect(row.pagesPerMinute).toBeCloseTo(60 / row.seconds, 5);
  });

  it("rejects bad levels and a missing document", async () => {
    expect((await ocr(["bench", "serve", "--concurrency", "0,2"])).exitCode).toBe(2);
    const missing = await ocr(["bench", "serve", "--doc", "/nonexistent.pdf"]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("/nonexistent.pdf: no such file");
  });
});
