// Discovery: turns paths, folders, globs and path lists into documents, recording bad inputs as problems.
import fg from "fast-glob";
import { open, stat } from "node:fs/promises";
import path from "node:path";
import { sniffKind, SNIFF_BYTES } from "./detect.js";
import type { InputErrorCode } from "./errors.js";

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

export interface Discovery {
  documents: DiscoveredDocument[];
  problems: DiscoveryProblem[];
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

/** fast-glob patterns are POSIX; escape a literal folder path before appending a pattern. */
function globBase(folder: string): string {
  return fg.escapePath(folder.split(path.sep).join("/"));
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
  const seen = new Set<string>();
  const add = (file: string, root: string | undefined, display?: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const shardKey = (root ? path.relative(root, file) : display ?? file).split(path.sep).join("/");
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
      if (code === "ENOENT" && fg.isDynamicPattern(input)) {
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
        matches = await fg(
          include.map((p) => `${globBase(absolute)}/${p}`),
          { absolute: true, onlyFiles: true, dot: false, ignore, followSymbolicLinks: true, suppressErrors: false },
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
    add(absolute, undefined, input);
  }
  return { documents, problems };
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
