// The decoder benchmark's JSON contract (numbers are not judged here: no timing assertions in tests).
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fixturesDir } from "./helpers.js";

describe("ocr bench decoder --json", () => {
  it("prints one object whose rows carry model, dtype, prefix and the tokens/s figures", () => {
    const script = path.resolve(fixturesDir, "../scripts/bench-decoder.mjs");
    const out = execFileSync(
      process.execPath,
      [
        script,
        "--json",
        "--skip-large",
        "--skip-ort",
        "--prefixes",
        "8,20",
        "--decode-tokens",
        "2",
        "--threads",
        "1",
        "--bandwidth-mb",
        "64",
      ],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const result = JSON.parse(out) as { bandwidthGBs: number; rows: Record<string, unknown>[] };
    expect(result.bandwidthGBs).toBeGreaterThan(0);
    expect(result.rows.map((r) => r.prefix)).toEqual([8, 20]);
    for (const row of result.rows) {
      expect(row).toMatchObject({ model: "tiny", dtype: "f32" });
      for (const k of ["decodeTokPerS", "prefillTokPerS", "boundTokPerS"]) expect(row[k]).toBeGreaterThan(0);
    }
  });

  it("names a bad --quantized list", () => {
    const script = path.resolve(fixturesDir, "../scripts/bench-decoder.mjs");
    let stderr = "";
    try {
      execFileSync(process.execPath, [script, "--skip-large", "--quantized", "q5"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (err) {
      stderr = String((err as { stderr?: string }).stderr);
    }
    expect(stderr).toMatch(/--quantized must be q8, q4, q8,q4 or none \(got q5\)/);
  });
});
