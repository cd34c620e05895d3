// `ocr models pull`: downloads a Hugging Face model repository into the cache, resumable, sizes and hashes checked.
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { once } from "node:events";
import { cacheNameForRepo, modelsDir, PULL_MARKER } from "./registry.js";

export const DEFAULT_ENDPOINT = "https://huggingface.co";

export interface PullOptions {
  revision?: string;
  /** destination folder (default: <cache>/models/<owner>--<name>) */
  dir?: string;
  /** only files whose repository path passes (default: everything) */
  include?: (repoPath: string) => boolean;
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
  /** progress: a file started, bytes arrived, a file finished (or was already complete) */
  onProgress?: (event: PullProgress) => void;
  signal?: AbortSignal;
}

export type PullProgress =
  | { kind: "file"; path: string; size: number; resumedFrom: number }
  | { kind: "bytes"; path: string; received: number; size: number }
  | { kind: "done"; path: string; size: number; skipped: boolean };

export interface PullResult {
  dir: string;
  repo: string;
  revision: string;
  files: { path: string; size: number; downloaded: boolean }[];
}

export class PullError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PullError";
  }
}

interface RemoteFile {
  path: string;
  size: number;
  /** sha256 for LFS files */
  sha256?: string;
  /** git blob sha1 for small files */
  gitSha1?: string;
}

function safeRelative(repoPath: string): string {
  const norm = path.posix.normalize(repoPath);
  if (norm.startsWith("../") || norm === ".." || path.posix.isAbsolute(norm) || norm.includes("\0"))
    throw new PullError(`refusing a repository path outside the target folder: ${JSON.stringify(repoPath)}`);
  return norm;
}

async function hashFile(file: string, algorithm: "sha256" | "sha1", prefix?: Buffer): Promise<string> {
  const h = createHash(algorithm);
  if (prefix) h.update(prefix);
  await pipeline(createReadStream(file), h);
  return h.digest("hex");
}

async function verify(file: string, remote: RemoteFile): Promise<void> {
  const size = (await stat(file)).size;
  if (size !== remote.size) throw new PullError(`${remote.path}: downloaded ${size} bytes, the hub lists ${remote.size}`);
  if (remote.sha256) {
    const got = await hashFile(file, "sha256");
    if (got !== remote.sha256) throw new PullError(`${remote.path}: sha256 ${got} does not match the hub's ${remote.sha256}`);
  } else if (remote.gitSha1) {
    const got = await hashFile(file, "sha1", Buffer.from(`blob ${size}\0`));
    if (got !== remote.gitSha1) throw new PullError(`${remote.path}: git hash ${got} does not match the hub's ${remote.gitSha1}`);
  }
}

async function downloadOne(
  url: string,
  target: string,
  remote: RemoteFile,
  headers: Record<string, string>,
  options: PullOptions,
  fetchImpl: typeof fetch,
): Promise<void> {
  const partial = `${target}.partial`;
  let have = existsSync(partial) ? (await stat(partial)).size : 0;
  if (have > remote.size) {
    await rm(partial);
    have = 0;
  }
  options.onProgress?.({ kind: "file", path: remote.path, size: remote.size, resumedFrom: have });
  if (have < remote.size || remote.size === 0) {
    const res = await fetchImpl(url, {
      headers: have > 0 ? { ...headers, Range: `bytes=${have}-` } : headers,
      redirect: "follow",
      signal: options.signal,
    });
    if (res.status === 401 || res.status === 403)
      throw new PullError(`${remote.path}: access denied (HTTP ${res.status}); gated repositories need HF_TOKEN`);
    if (!res.ok || !res.body) throw new PullError(`${remote.path}: HTTP ${res.status} ${res.statusText}`);
    // a server that ignores Range answers 200 with the whole file: start over
    const append = have > 0 && res.status === 206;
    if (!append) have = 0;
    let received = have;
    const body = Readable.fromWeb(res.body as import("node:stream/web").ReadableStream<Uint8Array>);
    const out = createWriteStream(partial, { flags: append ? "a" : "w" });
    let diskError: Error | undefined;
    out.on("error", (err) => (diskError ??= err));
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        if (diskError) throw diskError;
        received += chunk.length;
        options.onProgress?.({ kind: "bytes", path: remote.path, received, size: remote.size });
        if (!out.write(chunk)) await once(out, "drain");
      }
    } finally {
      // what arrived is written out even when the connection drops or the pull is cancelled, so that the next pull
      // resumes after it (a pipeline destroys the file stream on error, losing the bytes it still held)
      if (!out.destroyed) await new Promise<void>((resolve) => out.end(() => resolve()));
    }
    if (diskError) throw diskError;
  }
  try {
    await verify(partial, remote);
  } catch (err) {
    await rm(partial, { force: true }); // a corrupt partial would poison every resume
    throw err;
  }
  await rename(partial, target);
}

/** Downloads every file of `repo` at `revision` (HF_TOKEN and HF_ENDPOINT honoured); finished files are kept. */
export async function pullRepository(repo: string, options: PullOptions = {}): Promise<PullResult> {
  const env = options.env ?? process.env;
  const revision = options.revision ?? "main";
  const endpoint = (env.HF_ENDPOINT || DEFAULT_ENDPOINT).replace(/\/+$/, "");
  const token = env.HF_TOKEN || env.HUGGING_FACE_HUB_TOKEN || undefined;
  const fetchImpl = options.fetch ?? fetch;
  const dir = path.resolve(options.dir ?? path.join(modelsDir(env), cacheNameForRepo(repo)));
  await mkdir(dir, { recursive: true });
  const marker = path.join(dir, PULL_MARKER);
  await writeFile(marker, JSON.stringify({ repo, revision, endpoint, complete: false }) + "\n");

  const remote: RemoteFile[] = [];
  try {
    // (the hub client loads here, not at every start of the CLI)
    const { listFiles } = await import("@huggingface/hub");
    for await (const entry of listFiles({
      repo: { type: "model", name: repo },
      revision,
      recursive: true,
      hubUrl: endpoint,
      fetch: fetchImpl,
      ...(token ? { accessToken: token as `hf_${string}` } : {}),
    })) {
      if (entry.type !== "file") continue;
      if (options.include && !options.include(entry.path)) continue;
      remote.push({
        path: safeRelative(entry.path),
        size: entry.lfs?.size ?? entry.size,
        sha256: entry.lfs?.oid,
        gitSha1: entry.lfs ? undefined : entry.oid,
      });
    }
  } catch (err) {
    throw new PullError(`cannot list ${repo}@${revision} on ${endpoint}: ${(err as Error).message}`, { cause: err });
  }
  if (remote.length === 0) throw new PullError(`${repo}@${revision} on ${endpoint} has no files to download`);

  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const files: PullResult["files"] = [];
  for (const r of remote) {
    const target = path.join(dir, r.path);
    await mkdir(path.dirname(target), { recursive: true });
    if (existsSync(target) && (await stat(target)).size === r.size) {
      // a finished file is trusted by size: re-hashing gigabytes on every pull would be slow
      options.onProgress?.({ kind: "done", path: r.path, size: r.size, skipped: true });
      files.push({ path: r.path, size: r.size, downloaded: false });
      continue;
    }
    const url = `${endpoint}/${repo}/resolve/${encodeURIComponent(revision)}/${r.path.split("/").map(encodeURIComponent).join("/")}`;
    await downloadOne(url, target, r, headers, options, fetchImpl);
    options.onProgress?.({ kind: "done", path: r.path, size: r.size, skipped: false });
    files.push({ path: r.path, size: r.size, downloaded: true });
  }
  const record = JSON.parse(await readFile(marker, "utf8")) as Record<string, unknown>;
  await writeFile(marker, JSON.stringify({ ...record, complete: true, files: files.length }) + "\n");
  return { dir, repo, revision, files };
}
