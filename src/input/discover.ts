// Discovery: turns paths, folders, globs and path lists into documents, recording bad inputs as problems.
import { createRequire } from "node:module";
import { open, readdir, readlink, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { sniffKind, SNIFF_BYTES } from "./detect.js";
import type { InputErrorCode } from "./errors.js";

/** fast-glob's own matcher (micromatch, its dependency), so --include / --exclude mean what they meant with it. */
const micromatch = createRequire(createRequire(import.meta.url).resolve("fast-glob"))("micromatch") as {
  isMatch(path: string, patterns: string[], options?: { dot?: boolean }): boolean;
};

/** Extensions that promise a document; a file with one of them that is not a document is an error. */
export const DOCUMENT_EXTENSIONS = ["pdf", "png", "jpg", "jpeg", "jpe", "webp", "tif", "tiff", "gif", "avif"];

export interface DiscoveredDocument {
  /** "-" for stdin, otherwise the path as found (absolute). */
  path: string;
  /** How the user would recognise it: the path as typed, or relative to the current folder. */
  display: string;
  /** Path under the output folder, with its extension: mirrors the input tree. */
  relative: string;
  /** Path relative to its input root (a folder or a glob's base; a named file: the path as given): what --shard hashes. */
  shardKey: string;
}

export interface DiscoveryProblem {
  path: string;
  code: InputErrorCode;
  message: string;
}

export interface DiscoveryOptions {
  cwd?: string;
  include?: string[];
  exclude?: string[];
}

/** Something a folder walk skipped that the user should hear about (the walk goes on). */
export interface DiscoveryWarning {
  path: string;
  message: string;
}

export interface Discovery {
  documents: DiscoveredDocument[];
  problems: DiscoveryProblem[];
  /** Unreadable sub-folders, dangling links, link loops and repeated files the walk skipped. */
  warnings: DiscoveryWarning[];
}

function hasDocumentExtension(file: string): boolean {
  return DOCUMENT_EXTENSIONS.includes(path.extname(file).slice(1).toLowerCase());
}

async function looksLikeDocument(file: string): Promise<boolean> {
  try {
    const handle = await open(file, "r");
    try {
      const head = Buffer.alloc(SNIFF_BYTES);
      const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0);
      return sniffKind(head.subarray(0, bytesRead)) !== undefined;
    } finally {
      await handle.close();
    }
  } catch {
    // Unreadable: let opening it report the reason.
    return true;
  }
}

/** Relative output path: under the current folder when the file is, else under its input root. */
function relativeFor(file: string, cwd: string, root: string | undefined): string {
  const fromCwd = path.relative(cwd, file);
  if (fromCwd && !fromCwd.startsWith("..") && !path.isAbsolute(fromCwd)) return fromCwd;
  if (root) {
    const fromRoot = path.relative(root, file);
    if (fromRoot && !fromRoot.startsWith("..")) return fromRoot;
  }
  return path.basename(file);
}

function displayFor(file: string, cwd: string): string {
  const rel = path.relative(cwd, file);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : file;
}

/**
 * Expands inputs into documents. Files are taken as they are (opening them reports bad content);
 * folders are walked recursively (files with a document extension, plus others whose content is a
 * document); glob patterns expand to files. Missing paths, empty folders and globs that match no
 * document become problems, so the batch goes on with the rest.
 */
export async function discoverDocuments(inputs: readonly string[], options: DiscoveryOptions = {}): Promise<Discovery> {
  const cwd = options.cwd ?? process.cwd();
  const include = options.include?.length ? options.include : ["**/*"];
  const ignore = [...(options.exclude ?? []), "**/.ocr-tmp-*", "**/node_modules/**"];
  const documents: DiscoveredDocument[] = [];
  const problems: DiscoveryProblem[] = [];
  const warnings: DiscoveryWarning[] = [];
  const seen = new Set<string>();
  const add = (file: string, root: string | undefined, display?: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const shardKey = (root ? path.relative(root, file) : (display ?? file)).split(path.sep).join("/");
    documents.push({ path: file, display: display ?? displayFor(file, cwd), relative: relativeFor(file, cwd, root), shardKey });
  };

  for (const input of inputs) {
    if (input === "-") {
      if (!seen.has("-")) {
        seen.add("-");
        documents.push({ path: "-", display: "-", relative: "stdin", shardKey: "-" });
      }
      continue;
    }
    const absolute = path.resolve(cwd, input);
    let info;
    try {
      info = await stat(absolute);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // (fast-glob loads for a pattern only)
      const fg = code === "ENOENT" && /[*?[\]{}()!]/.test(input) ? (await import("fast-glob")).default : undefined;
      if (fg?.isDynamicPattern(input)) {
        const matches = await fg(input, { cwd, absolute: true, onlyFiles: true, dot: false, ignore });
        const found = (await Promise.all(matches.sort().map(async (m) => ((await isCandidate(m)) ? m : undefined)))).filter(
          (m): m is string => m !== undefined,
        );
        if (found.length === 0) problems.push({ path: input, code: "NO_DOCUMENTS", message: "pattern matched no documents" });
        const root = path.resolve(cwd, fg.generateTasks([input])[0]?.base ?? ".");
        for (const m of found) add(m, root);
        continue;
      }
      if (code === "ENOENT" || code === "ENOTDIR") problems.push({ path: input, code: "ENOENT", message: "no such file or folder" });
      else problems.push({ path: input, code: "EACCES", message: `cannot access: ${(error as Error).message}` });
      continue;
    }
    if (info.isDirectory()) {
      let matches: string[];
      try {
        matches = await walkFolder(absolute, include, options.exclude ?? [], (p, message) =>
          warnings.push({ path: displayFor(p, cwd), message }),
        );
      } catch (error) {
        problems.push({ path: input, code: "EACCES", message: `cannot read folder: ${(error as Error).message}` });
        continue;
      }
      const found: string[] = [];
      for (const m of matches.sort()) if (await isCandidate(m)) found.push(m);
      if (found.length === 0) {
        problems.push({ path: input, code: "NO_DOCUMENTS", message: "folder has no PDF or image documents" });
      }
      for (const m of found) add(m, absolute);
      continue;
    }
    if (info.isCharacterDevice() || info.isBlockDevice()) {
      // a device is read until it ends, which /dev/zero never does
      problems.push({ path: input, code: "UNSUPPORTED", message: "is a device, not a document" });
      continue;
    }
    add(absolute, undefined, input);
  }
  return { documents, problems, warnings };
}

/**
 * Files under `root` (absolute paths through the names as found) whose path below `root` matches `include`
 * and not `exclude`. Hidden entries, node_modules and temp files are left out. Links are followed, each
 * folder and file is visited once (a link loop is walked once, with a warning), and a sub-folder that cannot
 * be read, a dangling link or a link loop is skipped with a warning; only an unreadable `root` throws.
 */
async function walkFolder(
  root: string,
  include: readonly string[],
  exclude: readonly string[],
  warn: (path: string, message: string) => void,
): Promise<string[]> {
  const files: string[] = [];
  const visited = new Map<string, string>();
  const fileIds = new Map<string, string>();
  const rootInfo = await stat(root);
  visited.set(`${rootInfo.dev}:${rootInfo.ino}`, root);
  const matches = (rel: string) =>
    micromatch.isMatch(rel, include as string[], { dot: false }) &&
    (exclude.length === 0 || !micromatch.isMatch(rel, exclude as string[], { dot: false }));
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (dir === root) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      warn(dir, `folder skipped: ${code === "EACCES" || code === "EPERM" ? "permission denied" : (error as Error).message}`);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const full = path.join(dir, entry.name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      let id: string | undefined;
      if (entry.isSymbolicLink()) {
        let info;
        try {
          info = await stat(full);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          const target = await readlink(full).catch(() => "?");
          warn(full, code === "ELOOP" ? `link skipped: it loops (-> ${target})` : `link skipped: its target does not exist (-> ${target})`);
          continue;
        }
        isDir = info.isDirectory();
        isFile = info.isFile();
        id = `${info.dev}:${info.ino}`;
      }
      if (isDir) {
        if (!id) {
          const info = await stat(full).catch(() => undefined);
          if (!info) continue;
          id = `${info.dev}:${info.ino}`;
        }
        const first = visited.get(id);
        if (first !== undefined) {
          warn(full, `folder skipped: it is ${path.relative(root, first) || "."} again (a link loop or a second link to it)`);
          continue;
        }
        visited.set(id, full);
        await walk(full);
        continue;
      }
      if (!isFile) continue;
      const rel = path.relative(root, full).split(path.sep).join("/");
      if (!matches(rel)) continue;
      if (entry.isSymbolicLink()) {
        const real = await realpath(full).catch(() => full);
        const first = fileIds.get(id!) ?? fileIds.get(real);
        if (first !== undefined) {
          warn(full, `file skipped: it is ${path.relative(root, first)} again (a link)`);
          continue;
        }
        fileIds.set(real, full);
      } else {
        fileIds.set(full, full);
      }
      files.push(full);
    }
  };
  await walk(root);
  return files;
}

/** In a walk, a file is a candidate if its name promises a document or its bytes are one. */
async function isCandidate(file: string): Promise<boolean> {
  return hasDocumentExtension(file) || (await looksLikeDocument(file));
}

/** Parses a --files-from list: one path a line, blank lines and trailing CR ignored. */
export function parsePathList(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.replace(/\r$/, ""))
    .filter((line) => line.trim().length > 0);
}
