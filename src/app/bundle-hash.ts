// The content hash of a model bundle: every file's SHA-256, cached by size, times and inode so a run
// re-reads only files that changed. Part of --resume's key: a zeroed tensor, a new ONNX file, tokenizer or
// dictionary makes old results stale.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { cacheRoot } from "../model/registry.js";
import { writeFileAtomic } from "../output/atomic.js";

interface CacheEntry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  sha256: string;
}

function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}

/** Regular files under `dir` (links followed), as paths relative to it, sorted. */
async function bundleFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, depth: number): Promise<void> => {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      const info = await stat(full).catch(() => undefined);
      if (info?.isDirectory() && depth < 4) await walk(full, depth + 1);
      else if (info?.isFile()) out.push(path.relative(dir, full));
    }
  };
  await walk(dir, 0);
  return out.sort();
}

/**
 * One hash over every file of the bundle folder (name and content). Files whose size, modification and
 * change times and inode match the cache ($OCR_HOME/file-hashes.json) are not read again; the cache is
 * best-effort (a read-only home only costs the re-read).
 */
export async function bundleContentHash(dir: string, cacheFile = path.join(cacheRoot(), "file-hashes.json")): Promise<string> {
  let cache: Record<string, CacheEntry> = {};
  try {
    cache = JSON.parse(await readFile(cacheFile, "utf8")) as Record<string, CacheEntry>;
  } catch {
    cache = {};
  }
  let changed = false;
  const total = createHash("sha256");
  for (const rel of await bundleFiles(dir)) {
    const full = await realpath(path.join(dir, rel));
    const info = await stat(full);
    const hit = cache[full];
    let sha =
      hit && hit.size === info.size && hit.mtimeMs === info.mtimeMs && hit.ctimeMs === info.ctimeMs && hit.ino === info.ino
        ? hit.sha256
        : undefined;
    if (!sha) {
      sha = await sha256File(full);
      cache[full] = { size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino, sha256: sha };
      changed = true;
    }
    total.update(`${rel.split(path.sep).join("/")}\0${sha}\n`);
  }
  if (changed) await writeFileAtomic(cacheFile, JSON.stringify(cache)).catch(() => {});
  return total.digest("hex");
}
