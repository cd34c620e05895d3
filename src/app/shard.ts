// --shard K/N: a stable share of a batch's documents, so N machines (or CI jobs) split an archive with no coordinator.
import { createHash } from "node:crypto";

export interface Shard {
  /** 1-based: this run takes shard `index` of `count`. */
  index: number;
  count: number;
}

/** Parses "K/N" (1 <= K <= N <= 65536). Throws Error with a readable message otherwise. */
export function parseShard(value: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || count > 65536 || index < 1 || index > count) {
    throw new Error(`--shard takes K/N with 1 <= K <= N (e.g. 2/4), got "${value}"`);
  }
  return { index, count };
}

/**
 * The shard (1-based) a document belongs to: SHA-256 of its path relative to its input root (forward slashes),
 * first 6 bytes as an integer, modulo N. It depends on nothing but that path, so every machine agrees.
 */
export function shardOf(key: string, count: number): number {
  const digest = createHash("sha256").update(key.split("\\").join("/")).digest();
  return (digest.readUIntBE(0, 6) % count) + 1;
}

export function inShard(key: string, shard: Shard | undefined): boolean {
  return !shard || shardOf(key, shard.count) === shard.index;
}
