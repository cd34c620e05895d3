// Atomic file writes: write beside the target under a temporary name, then rename over it.
import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/** Temp files still open; removed on interruption so a Ctrl-C never leaves litter. */
const pending = new Set<string>();

/** Temp names start with this so a crashed run's leftovers are recognisable (and ignorable). */
export const TEMP_PREFIX = ".ocr-tmp-";

export function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `${TEMP_PREFIX}${path.basename(target)}.${randomBytes(4).toString("hex")}`);
}

/**
 * Writes data to `target` so that readers see either the old file or the complete new one,
 * never a partial file: rename is atomic within a filesystem, and the temp file sits beside the target.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  const temp = tempPathFor(target);
  pending.add(temp);
  try {
    await writeFile(temp, data);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  } finally {
    pending.delete(temp);
  }
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
