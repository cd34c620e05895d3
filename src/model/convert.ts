// Checkpoint → bundle: model.json from config.json, encoder.onnx exported by the PyTorch DeepEncoder (python -m
// ocr_tools.deepencoder.export_onnx, python/ in this package); decoder weights stay in place.
import { spawn, spawnSync } from "node:child_process";
import { constants, existsSync } from "node:fs";
import { access, mkdir, readdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadBundle, type Bundle } from "./bundle.js";
import { CheckpointConfigError, modelJsonFromCheckpointConfig } from "./checkpoint-config.js";
import { ModelFileError } from "./errors.js";
import type { ModelFamily } from "./schema.js";

export interface ConvertOptions {
  /** bundle folder; default: the checkpoint folder itself (model.json and encoder.onnx are added beside the weights) */
  out?: string;
  name?: string;
  family?: ModelFamily;
  mode?: string;
  /** re-export encoder.onnx even when one exists */
  force?: boolean;
  /** Python with PyTorch and onnx (default: findPython: $OCR_PYTHON, else the first of `python3` on PATH and /usr/bin/python3 that imports both) */
  python?: string;
  /** receives the exporter's progress lines */
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

/** The folder that holds the `ocr_tools` Python package (python/ in the package root). */
export function pythonToolsDir(): string {
  // src/model/ and dist/model/ both sit two levels under the package root
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../python");
}

/** The Python module `ocr models convert` runs (python/ocr_tools/deepencoder/export_onnx.py). */
export const EXPORT_MODULE = "ocr_tools.deepencoder.export_onnx";

/** `env` with python/ first on PYTHONPATH, so `python -m ocr_tools....` runs this package's copy. */
export function pythonEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const rest = env.PYTHONPATH ? `${path.delimiter}${env.PYTHONPATH}` : "";
  return { ...env, PYTHONPATH: `${pythonToolsDir()}${rest}` };
}

/** What a Python for the exporter must import. */
const PYTHON_MODULES = ["torch", "onnx"];

/**
 * The interpreters `ocr models convert` tries, in order: $OCR_PYTHON alone when set (the user's choice is never
 * second-guessed), else `python3` as found on PATH (a venv or conda environment with PyTorch comes first there),
 * then Debian's /usr/bin/python3 (python3-torch and python3-onnx install there).
 */
export function pythonCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.OCR_PYTHON) return [env.OCR_PYTHON];
  return ["python3", "/usr/bin/python3"];
}

/** Why `python` cannot run the exporter (it does not start, or lacks a module), or undefined when it can. */
function pythonProblem(python: string, env: NodeJS.ProcessEnv): string | undefined {
  const r = spawnSync(python, ["-c", `import ${PYTHON_MODULES.join(", ")}`], { env, encoding: "utf8", timeout: 120_000 });
  if (r.error) return (r.error as NodeJS.ErrnoException).code === "ENOENT" ? "not found" : r.error.message;
  if (r.status === 0) return undefined;
  const last = (r.stderr ?? "").trim().split("\n").at(-1);
  return last || `exit ${r.status}`;
}

/**
 * The first candidate (pythonCandidates) that imports PyTorch and onnx. Throws an error that names each
 * interpreter tried with its problem, and OCR_PYTHON.
 */
export function findPython(env: NodeJS.ProcessEnv = process.env): string {
  const tried: string[] = [];
  for (const python of pythonCandidates(env)) {
    const problem = pythonProblem(python, env);
    if (!problem) return python;
    tried.push(`${python}: ${problem}`);
  }
  const how = env.OCR_PYTHON ? "OCR_PYTHON names" : "found";
  throw new Error(
    `the encoder export needs Python with ${PYTHON_MODULES.join(" and ")}, and no interpreter ${how} has them ` +
      `(${tried.join("; ")}). Install them (Debian: apt-get install python3-torch python3-onnx; pip: pip install torch onnx) ` +
      `or set OCR_PYTHON to an interpreter that has them`,
  );
}

/** Weights list for model.json: the shard index when there is one, else every .safetensors file. */
async function weightsOf(dir: string): Promise<string[]> {
  if (existsSync(path.join(dir, "model.safetensors.index.json"))) return ["model.safetensors.index.json"];
  const files = (await readdir(dir)).filter((f) => f.endsWith(".safetensors")).sort();
  if (files.length === 0)
    throw new ModelFileError(dir, "no .safetensors weights (a PyTorch .bin checkpoint must be converted to safetensors first)");
  return files;
}

function runExporter(python: string, args: string[], log: (line: string) => void, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, ["-m", EXPORT_MODULE, ...args], { stdio: ["ignore", "pipe", "pipe"], env: pythonEnv(env) });
    let tail = "";
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-4000);
      for (const line of text.split("\n")) if (line.trim() && !/Warning|_C\._jit/.test(line)) log(line.trimEnd());
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", (err) =>
      reject(new Error(`cannot start ${python} (the export needs Python with PyTorch and onnx; OCR_PYTHON selects it): ${err.message}`)),
    );
    child.on("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`encoder export failed (exit ${code}):\n${tail.trim().split("\n").slice(-8).join("\n")}`));
    });
  });
}

/** Converts a DeepSeek-OCR-family checkpoint folder into a bundle and returns it, validated. */
export async function convertCheckpoint(checkpointDir: string, options: ConvertOptions = {}): Promise<Bundle> {
  const src = path.resolve(checkpointDir);
  const out = path.resolve(options.out ?? src);
  const log = options.log ?? (() => undefined);
  const env = options.env ?? process.env;
  const configPath = path.join(src, "config.json");
  let config: Record<string, unknown>;
  try {
    config = JSON.parse(await readFile(configPath, "utf8"));
  } catch (err) {
    throw new ModelFileError(configPath, `cannot read the checkpoint's config (${(err as Error).message})`);
  }
  for (const f of ["tokenizer.json"])
    if (!existsSync(path.join(src, f))) throw new ModelFileError(path.join(src, f), "missing from the checkpoint");
  const weights = await weightsOf(src);
  let modelJson;
  try {
    modelJson = modelJsonFromCheckpointConfig(config, {
      name: options.name ?? path.basename(out),
      weights,
      family: options.family,
      mode: options.mode,
      source: { checkpoint: src },
    });
  } catch (err) {
    if (err instanceof CheckpointConfigError) throw new ModelFileError(configPath, err.message.replace(/^config\.json: /, ""));
    throw err;
  }

  try {
    await mkdir(out, { recursive: true });
    await access(out, constants.W_OK);
  } catch (err) {
    throw new ModelFileError(
      out,
      `cannot write the bundle here (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); pass --out DIR to write it elsewhere`,
    );
  }
  if (out !== src) {
    // the bundle refers to the checkpoint's files through links: multi-GB weights are never copied
    const linked = new Set(["tokenizer.json", "tokenizer_config.json", ...weights]);
    if (weights[0]!.endsWith(".json")) {
      const index = JSON.parse(await readFile(path.join(src, weights[0]!), "utf8")) as { weight_map: Record<string, string> };
      for (const shard of new Set(Object.values(index.weight_map))) linked.add(shard);
    }
    for (const f of linked) {
      const from = path.join(src, f);
      const to = path.join(out, f);
      if (existsSync(from) && !existsSync(to)) await symlink(from, to);
    }
  }

  const encoderPath = path.join(out, modelJson.vision.encoder);
  if (options.force || !existsSync(encoderPath)) {
    log(`exporting the DeepEncoder from ${src} to ${encoderPath}`);
    await runExporter(options.python ?? findPython(env), ["--checkpoint", src, "--out", encoderPath], log, env);
  } else {
    log(`keeping the existing ${encoderPath} (--force re-exports it)`);
  }
  const target = path.join(out, "model.json");
  const tmp = `${target}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(modelJson, null, 2) + "\n");
  await rename(tmp, target);
  return loadBundle(out);
}
