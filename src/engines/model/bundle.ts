// The model engine's bundle: where it is (--model / OCR_MODEL, else the package's models/default), loaded and
// validated once, with the tokenizer, the native decoder and the vision front end it names.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Decoder, DecoderError } from "../../native/index.js";
import { loadBundle, type Bundle } from "../../model/bundle.js";
import { ModelFileError } from "../../model/errors.js";
import { resolveModelDir } from "../../model/registry.js";
import { readTensorF32 } from "../../model/safetensors.js";
import { Tokenizer } from "../../model/tokenizer.js";
import { VisionEncoder } from "../../vision/encoder.js";
import { LineEncoder } from "../../vision/line-encoder.js";
import type { ModelIdentity } from "../engine.js";
import { EnvironmentError, UsageError } from "../errors.js";
import type { ModelOptions } from "../settings.js";
import { resolveDecodeOptions, type DecodeOptions } from "./options.js";
import { WordList } from "./words.js";

/** A bundle loaded for decoding: validated model.json, tokenizer, native decoder, the vision front end, layout rows. */
export interface LoadedModel {
  bundle: Bundle;
  tokenizer: Tokenizer;
  decoder: Decoder;
  /** the page-grid encoder, or (vision.lines) the line front end */
  encoder?: VisionEncoder;
  lines?: LineEncoder;
  newline?: Float32Array;
  separator?: Float32Array;
  /** a language's word list (model.json vision.lines.words), read the first time a page of it asks */
  words?: (lang: string) => WordList | undefined;
}

/**
 * Whether the bundle `model.dir` names (else models/default) has the line front end (model.json vision.lines): its
 * pages' small vision stages run one thread each, so a batch reads one document per thread. False when the bundle
 * cannot be read (loading it then says why).
 */
export async function lineUnitBundle(settings: { model: ModelOptions }): Promise<boolean> {
  const dir = bundleDirFor(settings.model.dir);
  if (!dir) return false;
  try {
    const json = JSON.parse(await readFile(path.join(dir, "model.json"), "utf8")) as { vision?: { lines?: unknown } };
    return json.vision?.lines !== undefined;
  } catch {
    return false;
  }
}

/** The bundle folder --model names (a folder, or a pulled model's name), else models/default; undefined: neither. */
export function bundleDirFor(requested: string | undefined): string | undefined {
  return requested ? resolveModelDir(requested) : defaultModelDir();
}

/** bundleDirFor, or the usage error that names a --model that is neither a folder nor a pulled model. */
export function requireBundleDir(requested: string | undefined): string {
  const dir = bundleDirFor(requested);
  if (!dir) throw new UsageError(`--model ${requested}: no such folder, and no pulled model of that name (see ocr models list)`);
  return dir;
}

/** The bundle's word lists by language, each read when first asked for (most runs meet no page of the language);
 * a file the bundle names and lacks, or one that is no word list, stops the run here, before any page. */
function wordLists(dir: string, files: Readonly<Record<string, string>>): (lang: string) => WordList | undefined {
  for (const file of Object.values(files)) {
    if (!existsSync(path.join(dir, file)))
      throw new EnvironmentError(`no usable model: ${path.join(dir, file)}: no such file (model.json vision.lines.words)`);
    try {
      WordList.check(path.join(dir, file));
    } catch (err) {
      throw new EnvironmentError(`no usable model: ${(err as Error).message}`, { cause: err });
    }
  }
  const read = new Map<string, WordList>();
  return (lang) => {
    if (!Object.hasOwn(files, lang)) return undefined;
    let list = read.get(lang);
    if (!list) read.set(lang, (list = WordList.read(path.join(dir, files[lang]!))));
    return list;
  };
}

/** The package's own models/default folder (next to dist/ and src/). */
export function defaultModelDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../models/default");
}

async function modelIdentity(bundle: Bundle): Promise<ModelIdentity> {
  const h = createHash("sha256");
  h.update(await readFile(bundle.modelJsonPath));
  for (const t of [...bundle.tensors.values()].sort((a, b) => a.name.localeCompare(b.name)))
    h.update(`${t.name}:${t.dtype}:${t.shape}:${t.byteLength};`);
  return { name: bundle.json.name, dir: bundle.dir, id: h.digest("hex").slice(0, 16) };
}

/**
 * Loads the bundle `model.dir` names (else models/default) once: model.json is read and validated here, the
 * decode options are resolved against it, and the native decoder is built from the validated bundle.
 */
export async function loadModel(settings: {
  model: ModelOptions;
}): Promise<{ loaded: LoadedModel; identity: ModelIdentity; options: DecodeOptions }> {
  const dir = requireBundleDir(settings.model.dir);
  let bundle: Bundle;
  try {
    bundle = await loadBundle(dir);
  } catch (err) {
    if (err instanceof ModelFileError) throw new EnvironmentError(`no usable model: ${err.message}`, { cause: err });
    throw err;
  }
  const json = bundle.json;
  const options = resolveDecodeOptions(settings.model, json, bundle.dir);
  // a file the bundle names outside its folder is not part of the model that --resume and NAME.json identify
  const inside = path.relative(bundle.dir, bundle.encoderPath);
  if (inside.startsWith("..") || path.isAbsolute(inside))
    throw new EnvironmentError(
      `no usable model: ${bundle.modelJsonPath}: vision.encoder "${json.vision.encoder}" points outside the bundle folder`,
    );
  // the tokenizer first: a broken one must stop the run before any thread or native session starts
  let tokenizer: Tokenizer;
  try {
    tokenizer = await Tokenizer.load(bundle.tokenizerPath);
  } catch (err) {
    throw new EnvironmentError(
      `no usable model: ${err instanceof ModelFileError ? err.message : `${bundle.tokenizerPath}: ${(err as Error).message}`}`,
      { cause: err },
    );
  }
  // the word lists' files checked before any thread or native session starts, as the tokenizer is
  const words = wordLists(bundle.dir, json.vision.lines?.words ?? {});
  let decoder: Decoder;
  try {
    decoder = Decoder.fromBundle(bundle, { threads: options.threads });
  } catch (err) {
    if (err instanceof DecoderError) throw new EnvironmentError(err.message, { cause: err });
    throw err;
  }
  // a line-unit model's vision sessions run one intra-op thread each and its threads go to pages prepared at once
  // (decode.ts pagesAhead): a second intra-op thread bought a page's small convolutions almost nothing (ten dev
  // pages, 32.0 s against 31.7-35.1 s on one)
  const encoderOptions = { threads: json.vision.lines ? 1 : options.threads };
  let encoder: VisionEncoder | undefined;
  let lines: LineEncoder | undefined;
  try {
    if (json.vision.lines)
      lines = await LineEncoder.open(bundle.dir, json.vision.lines, bundle.encoderPath, encoderOptions, options.readingOrder);
    else encoder = await VisionEncoder.open(bundle.encoderPath, encoderOptions);
  } catch (err) {
    throw new EnvironmentError((err as Error).message, { cause: err });
  }
  const row = async (name: string) => (bundle.tensors.has(name) ? readTensorF32(bundle.tensors.get(name)!) : undefined);
  const loaded: LoadedModel = {
    bundle,
    tokenizer,
    decoder,
    encoder,
    lines,
    newline: await row("model.image_newline"),
    separator: await row("model.view_seperator"),
    words,
  };
  return { loaded, identity: await modelIdentity(bundle), options };
}
