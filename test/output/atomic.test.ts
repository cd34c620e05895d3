// Atomic writes leave either the old file or the whole new one, and no temp files.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removePendingTempFiles, TEMP_PREFIX, writeFileAtomic } from "../../src/output/atomic.js";
import { tempDir } from "../helpers/paths.js";

const tmp = tempDir();
afterAll(tmp.cleanup);

describe("writeFileAtomic", () => {
  it("creates folders, replaces old content, leaves no temp file", async () => {
    const target = path.join(tmp.dir, "x/y/out.md");
    await writeFileAtomic(target, "first\n");
    await writeFileAtomic(target, "second\n");
    expect(readFileSync(target, "utf8")).toBe("second\n");
    expect(readdirSync(path.dirname(target))).toEqual(["out.md"]);
  });

  it("keeps the old file when a write fails", async () => {
    const target = path.join(tmp.dir, "keep.json");
    writeFileSync(target, "old");
    // A folder where the temp file's parent should be forces the write to fail.
    const blocked = path.join(tmp.dir, "keep.json", "inner.json");
    await expect(writeFileAtomic(blocked, "new")).rejects.toThrow();
    expect(readFileSync(target, "utf8")).toBe("old");
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith(TEMP_PREFIX))).toEqual([]);
  });

  it("removes in-flight temp files on interruption", async () => {
    const target = path.join(tmp.dir, "big.bin");
    const write = writeFileAtomic(target, Buffer.alloc(64 * 1024 * 1024, 1));
    await removePendingTempFiles();
    await write.catch(() => {});
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith(TEMP_PREFIX))).toEqual([]);
  });
});
