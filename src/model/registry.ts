// The model cache: where pulled checkpoints and bundles live (OCR_HOME, else the XDG cache), and name → folder lookup.
import { existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Root of our cache: $OCR_HOME, else $XDG_CACHE_HOME/ocr, else ~/.cache/ocr. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OCR_HOME) return path.resolve(env.OCR_HOME);
  const xdg = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(os.homedir(), ".cache");
  return path.join(xdg, "ocr");
}

export function modelsDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), "models");
}

/** Cache folder name of a hub repository: "deepseek-ai/DeepSeek-OCR" → "deepseek-ai--DeepSeek-OCR". */
export function cacheNameForRepo(repo: string): string {
  if (!/^[A-Za-z0-9][\w.-]*\/[\w.-]+$/.test(repo) || repo.includes(".."))
    throw new Error(`"${repo}" is not a Hugging Face repository id (owner/name)`);
  return repo.replace("/", "--");
}

/** The package's embedded default model bundle. */
export function defaultBundleDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../models/default");
}

export interface CachedModel {
  name: string;
  dir: string;
  /** model.json present: runnable by `ocr parse --model NAME` */
  converted: boolean;
  /** config.json present: a checkpoint that `ocr models convert` can turn into a bundle */
  checkpoint: boolean;
  family?: string;
  repo?: string;
  revision?: string;
  /** bytes of regular files in the folder (links to shared weights counted once, at their target) */
  bytes: number;
  /** a pull that has not finished */
  incomplete: boolean;
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.isFile()) total += (await stat(path.join(dir, e.name))).size;
  }
  return total;
}

export const PULL_MARKER = ".ocr-pull.json";

async function describeFolder(name: string, dir: string): Promise<CachedModel> {
  const converted = existsSync(path.join(dir, "model.json"));
  const m: CachedModel = {
    name,
    dir,
    converted,
    checkpoint: existsSync(path.join(dir, "config.json")),
    bytes: await folderBytes(dir),
    incomplete: false,
  };
  if (converted) {
    try {
      m.family = (JSON.parse(await readFile(path.join(dir, "model.json"), "utf8")) as { family?: string }).family;
    } catch {
      m.family = "(unreadable model.json)";
    }
  }
  try {
    const pull = JSON.parse(await readFile(path.join(dir, PULL_MARKER), "utf8")) as {
      repo?: string;
      revision?: string;
      complete?: boolean;
    };
    m.repo = pull.repo;
    m.revision = pull.revision;
    m.incomplete = pull.complete !== true;
  } catch {
    // folders put there by hand have no pull record
  }
  return m;
}

/** Models in the cache, plus the embedded default when it is installed. */
export async function listModels(env: NodeJS.ProcessEnv = process.env): Promise<CachedModel[]> {
  const out: CachedModel[] = [];
  const def = defaultBundleDir();
  if (existsSync(path.join(def, "model.json"))) out.push(await describeFolder("default", def));
  const root = modelsDir(env);
  if (existsSync(root)) {
    for (const e of (await readdir(root, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory() || e.isSymbolicLink()) out.push(await describeFolder(e.name, path.join(root, e.name)));
    }
  }
  return out;
}

/**
 * Resolves what the user typed for a model: an existing folder path, "default", a cache name
 * ("deepseek-ai--DeepSeek-OCR") or a hub id ("deepseek-ai/DeepSeek-OCR") that was pulled.
 */
export function resolveModelDir(nameOrPath: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (nameOrPath === "default") return defaultBundleDir();
  if (existsSync(nameOrPath)) return path.resolve(nameOrPath);
  const root = modelsDir(env);
  let cacheName = nameOrPath;
  if (nameOrPath.includes("/")) {
    try {
      cacheName = cacheNameForRepo(nameOrPath);
    } catch {
      return undefined;
    }
  }
  if (cacheName.includes("/") || cacheName.includes("\\") || cacheName.startsWith(".")) return undefined;
  const dir = path.join(root, cacheName);
  return existsSync(dir) ? dir : undefined;
}
