// Atomic file writes: write beside the target under a temporary name, fsync, then rename over it.
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";

/** Temp files still open; removed on interruption so a Ctrl-C never leaves litter. */
const pending = new Set<string>();

/** Temp names start with this so a crashed run's leftovers are recognisable (and ignorable). */
export const TEMP_PREFIX = ".ocr-tmp-";

/** `.ocr-tmp-NAME.PID.RANDOM`: the writer's process id lets a later run tell a dead writer's leftovers. */
export function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `${TEMP_PREFIX}${path.basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}`);
}

/** A write that failed, naming the file the user asked for (never the temp file) and the reason. */
export class OutputWriteError extends Error {
  readonly code: string;
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    const e = cause as NodeJS.ErrnoException;
    const reason =
      e?.code === "ENOSPC"
        ? "no space left on device"
        : e?.code === "EDQUOT"
          ? "disk quota exceeded"
          : e?.code === "EACCES" || e?.code === "EPERM"
            ? "permission denied"
            : e?.code === "EROFS"
              ? "read-only file system"
              : e?.code === "ENOTDIR"
                ? "a parent path is a file, not a folder"
                : e?.code === "EISDIR"
                  ? "a folder has that name"
                  : (e?.message ?? String(cause));
    super(`cannot write ${file}: ${reason}${e?.code ? ` (${e.code})` : ""}`, { cause });
    this.name = "OutputWriteError";
    this.code = e?.code ?? "EIO";
  }
}

/** Writes `data` to a new temp file beside `target` and flushes it to the disk; returns the temp path. */
async function writeTemp(target: string, data: string | Uint8Array): Promise<string> {
  await mkdir(path.dirname(target), { recursive: true });
  const temp = tempPathFor(target);
  pending.add(temp);
  try {
    const handle = await open(temp, "w", 0o666);
    try {
      await handle.writeFile(data);
      // the rename must not reach the disk before the bytes do (a crash would leave an empty file)
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    await rm(temp, { force: true });
    pending.delete(temp);
    throw error;
  }
  return temp;
}

/** Flushes a folder's entries (the renames into it); file systems that cannot are left as they are. */
async function syncFolder(folder: string): Promise<void> {
  let handle;
  try {
    handle = await open(folder, "r");
    await handle.sync();
  } catch {
    // some file systems refuse fsync on folders (EINVAL, EISDIR): the rename is still atomic there
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * Writes data to `target` so that readers see either the old file or the complete new one,
 * never a partial file: rename is atomic within a filesystem, and the temp file sits beside the target.
 * A failure is an OutputWriteError naming `target`.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array): Promise<void> {
  await writeFilesAtomic([{ file: target, data }]);
}

/**
 * Commits several files together: every temp file is written and flushed first, and only then are they
 * renamed into place, so a full disk or a failed write leaves none of them new (the old ones stay).
 * Renames within one folder do not fail for lack of space; if one fails anyway, the ones already made are
 * removed so the set is never half new.
 */
export async function writeFilesAtomic(files: readonly { file: string; data: string | Uint8Array }[]): Promise<void> {
  const temps: string[] = [];
  let current = files[0]?.file ?? "";
  try {
    for (const f of files) {
      current = f.file;
      temps.push(await writeTemp(f.file, f.data));
    }
    const renamed: string[] = [];
    try {
      for (const [i, f] of files.entries()) {
        current = f.file;
        await rename(temps[i]!, f.file);
        renamed.push(f.file);
      }
    } catch (error) {
      await Promise.all(renamed.map((f) => rm(f, { force: true })));
      throw error;
    }
    for (const folder of new Set(files.map((f) => path.dirname(f.file)))) await syncFolder(folder);
  } catch (error) {
    await Promise.all(temps.map((t) => rm(t, { force: true })));
    throw error instanceof OutputWriteError ? error : new OutputWriteError(current, error);
  } finally {
    for (const t of temps) pending.delete(t);
  }
}

/** Temp files of writers that are gone: their process id is dead, or (older names without one) a day old. */
function abandoned(name: string, mtimeMs: number): boolean {
  const match = /\.(\d+)\.[0-9a-f]{8}$/.exec(name);
  if (match) {
    const pid = Number(match[1]);
    if (pid === process.pid) return false;
    try {
      process.kill(pid, 0);
      return Date.now() - mtimeMs > 7 * 24 * 3600 * 1000; // a reused id: only a week-old file is taken
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ESRCH";
    }
  }
  return Date.now() - mtimeMs > 24 * 3600 * 1000;
}

/**
 * Removes temp files that killed runs (SIGKILL, power loss) left under `folder`, at most `depth` folders
 * down; another live run's temp files are left alone. Returns the paths removed.
 */
export async function sweepTempFiles(folder: string, depth = 16): Promise<string[]> {
  const removed: string[] = [];
  const walk = async (dir: string, level: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && level < depth && !entry.name.startsWith(TEMP_PREFIX)) await walk(full, level + 1);
      else if (entry.isFile() && entry.name.startsWith(TEMP_PREFIX)) {
        const info = await stat(full).catch(() => undefined);
        if (info && abandoned(entry.name, info.mtimeMs)) {
          await rm(full, { force: true });
          removed.push(full);
        }
      }
    }
  };
  await walk(folder, 0);
  return removed;
}

/** Removes temp files of writes still in flight; call on SIGINT before exiting. */
export async function removePendingTempFiles(): Promise<void> {
  await Promise.all([...pending].map((file) => rm(file, { force: true })));
  pending.clear();
}

/** Synchronous variant for process exit handlers, where no more promises will run. */
export function removePendingTempFilesSync(rmSync: (p: string, o: { force: boolean }) => void): void {
  for (const file of pending) rmSync(file, { force: true });
  pending.clear();
}
