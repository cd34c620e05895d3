// --shard K/N: every document lands in exactly one shard, by its path below the input root, whatever the machine.
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inShard, parseShard, shardOf } from "../../src/app/shard.js";
import { ocr } from "../helpers/cli.js";
import { fixture, tempDir } from "../helpers/paths.js";

describe("shard arithmetic", () => {
  it("parses K/N and names the problem otherwise", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    expect(parseShard(" 1 / 1 ")).toEqual({ index: 1, count: 1 });
    for (const bad of ["0/4", "5/4", "4", "a/b", "1/0", "-1/3", "1/70000"]) expect(() => parseShard(bad)).toThrow(/--shard takes K\/N/);
  });

  it("puts every one of 2,000 paths in exactly one of N shards, in shares near 1/N", () => {
    const keys = Array.from({ length: 2000 }, (_, i) => `archive/box-${i % 37}/scan-${i}.pdf`);
    for (const n of [1, 2, 3, 5, 8, 16]) {
      const counts = new Array<number>(n).fill(0);
      for (const key of keys) {
        const owners = Array.from({ length: n }, (_, k) => k + 1).filter((k) => inShard(key, { index: k, count: n }));
        expect(owners).toHaveLength(1);
        counts[owners[0]! - 1]!++;
      }
      for (const c of counts) expect(Math.abs(c - 2000 / n)).toBeLessThan(Math.max(40, (2000 / n) * 0.25));
    }
  });

  it("is stable across runs and machines: a fixed path hashes to a fixed shard, Windows separators alike", () => {
    // pinned: changing the hash would reshuffle every archive already split between machines
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((i) => shardOf(`docs/report-${i}.pdf`, 4))).toEqual([4, 4, 1, 3, 3, 4, 1, 2]);
    expect(shardOf("docs\\a\\b.pdf", 7)).toBe(shardOf("docs/a/b.pdf", 7));
    expect(inShard("anything", undefined)).toBe(true);
  });
});

describe("ocr parse --shard", () => {
  const tmp = tempDir("ocr-shard-");
  const root = path.join(tmp.dir, "archive");
  const names: string[] = [];
  beforeAll(() => {
    for (let i = 0; i < 10; i++) {
      const rel = `box-${i % 3}/doc-${i}.pdf`;
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      copyFileSync(fixture("blank_page.pdf"), path.join(root, rel));
      names.push(rel);
    }
    // two inputs that share a name keep their extensions in every shard
    copyFileSync(fixture("blank_page.pdf"), path.join(root, "same.pdf"));
    copyFileSync(fixture("table.png"), path.join(root, "same.png"));
    names.push("same.pdf", "same.png");
  });
  afterAll(tmp.cleanup);

  const done = (stdout: string) =>
    stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; source: string })
      .filter((e) => e.type === "document-done")
      .map((e) => e.source);

  it("3 shards cover every document exactly once, write the names an unsharded run writes, and resume", async () => {
    const out = path.join(tmp.dir, "out");
    const seen: string[] = [];
    for (let k = 1; k <= 3; k++) {
      // each "machine" names the archive its own way (relative, absolute): the shard depends on the path below it
      const r = await ocr(
        ["parse", k === 2 ? root : "archive", "--shard", `${k}/3`, "--engine", "text", "-o", out, "--resume", "--jsonl", "--format", "md"],
        { cwd: tmp.dir },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      const mine = done(r.stdout).map((s) => path.relative(root, path.resolve(tmp.dir, s)).split(path.sep).join("/"));
      for (const rel of mine) expect(shardOf(rel, 3)).toBe(k);
      seen.push(...mine);
    }
    expect(seen.sort()).toEqual([...names].sort());
    const written = readdirSync(out, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".md"))
      .sort();
    expect(written).toContain(path.join("archive", "same.pdf.md"));
    expect(written).toContain(path.join("archive", "same.png.md"));
    expect(written).toHaveLength(names.length);
    // a rerun of one shard finds its documents done
    const again = await ocr(
      ["parse", "archive", "--shard", "2/3", "--engine", "text", "-o", out, "--resume", "--jsonl", "--format", "md"],
      { cwd: tmp.dir },
    );
    expect(again.exitCode).toBe(0);
    expect(done(again.stdout)).toEqual([]);
    expect(again.stdout).toContain('"document-skipped"');
  });

  it("rejects a malformed --shard as a usage error", async () => {
    const r = await ocr(["parse", "archive", "--shard", "4/3", "--engine", "text"], { cwd: tmp.dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--shard takes K\/N/);
  });
});
