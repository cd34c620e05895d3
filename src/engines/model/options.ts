// Decode options resolved once: what the CLI or API asked for (ModelOptions), merged with the bundle's defaults
// (model.json attention, decoding, vision.mode) and validated in one place, with messages naming the option.
import type { AttentionPolicy, FocalOptions } from "../../native/index.js";
import type { ModelJson } from "../../model/schema.js";
import { documentModeOf, resolveMode } from "../../vision/preprocess.js";
import { UsageError } from "../errors.js";
import type { ModelOptions } from "../settings.js";

/** Everything the model engine decodes with; no field is left for a later layer to default. */
export interface DecodeOptions {
  /** preprocessing mode of a page read on its own, a key of model.json vision.modes */
  mode: string;
  /** preprocessing mode of pages that share a multi-page pass (never tiled; see documentModeOf) */
  documentMode: string;
  /** per-page token cap */
  maxTokens: number;
  attention: AttentionPolicy;
  /** focal pruning, or undefined when it is off */
  focal: FocalOptions | undefined;
  /** CPU threads for the encoder and the decoder; undefined = the engine's choice */
  threads: number | undefined;
  /** where per-step fixation records go (needs focal pruning and the streaming layout) */
  fixationsFile: string | undefined;
  /** reading order of a page's detected lines (line-unit bundles): the learned order when the bundle has one */
  readingOrder: "xy-cut" | "learned";
}

/** Focal pruning settings used when the bundle has no attention.focal section and the user turns it on. */
export const FOCAL_DEFAULTS: FocalOptions = { keep: 0.05, layers: 2, warmup: 8 };

function integer(flag: string, value: number | undefined, min: number): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= min))
    throw new UsageError(`${flag} must be an integer >= ${min}, got ${JSON.stringify(value)}`);
}

/**
 * Checks what was asked for, whatever the bundle: types, ranges and contradictions between options.
 * The CLI has already turned strings into numbers; API callers reach this with whatever they passed.
 */
export function checkModelOptions(o: ModelOptions): void {
  integer("--max-tokens", o.maxTokens, 1);
  integer("--threads", o.threads, 1);
  if (o.attention !== undefined && o.attention !== "full" && o.attention !== "rswa")
    throw new UsageError(`--attention must be full or rswa, got ${JSON.stringify(o.attention)}`);
  integer("--window", o.window, 1);
  if (o.window !== undefined && o.attention === "full") throw new UsageError("--window applies to --attention rswa, not full");
  const f = o.focal;
  if (f.keep !== undefined && !(typeof f.keep === "number" && f.keep > 0 && f.keep <= 1))
    throw new UsageError(`--focal-keep must be a number in (0, 1], got ${JSON.stringify(f.keep)}`);
  integer("--focal-layers", f.layers, 1);
  integer("--focal-warmup", f.warmup, 1);
  if (o.readingOrder !== undefined && o.readingOrder !== "xy-cut" && o.readingOrder !== "learned")
    throw new UsageError(`--reading-order must be xy-cut or learned, got ${JSON.stringify(o.readingOrder)}`);
  if (!f.enabled && (f.keep !== undefined || f.layers !== undefined || f.warmup !== undefined))
    throw new UsageError("--no-focal cannot be combined with --focal-keep, --focal-layers or --focal-warmup");
}

/**
 * The one merge of requested options and bundle defaults:
 * - attention: --attention, else rswa when --window is given, else the bundle's kind; the window is --window,
 *   else the bundle's;
 * - focal pruning: off with --no-focal; on when the bundle has attention.focal or any --focal-* option is given,
 *   each field from its option, else the bundle, else FOCAL_DEFAULTS.
 */
export function resolveDecodeOptions(requested: ModelOptions, json: ModelJson, bundleDir: string): DecodeOptions {
  checkModelOptions(requested);
  let mode: string;
  let documentMode: string;
  try {
    [mode] = resolveMode(json.vision, requested.mode);
    documentMode = documentModeOf(json.vision, mode);
  } catch (err) {
    throw new UsageError(`--mode: ${(err as Error).message}`);
  }
  const kind = requested.attention ?? (requested.window !== undefined ? "rswa" : json.attention.kind);
  const attention: AttentionPolicy =
    kind === "rswa" ? { kind: "rswa", window: requested.window ?? json.attention.window } : { kind: "full" };

  const f = requested.focal;
  const base = json.attention.focal;
  const asked = f.keep !== undefined || f.layers !== undefined || f.warmup !== undefined;
  const focal: FocalOptions | undefined =
    f.enabled && (base || asked)
      ? {
          keep: f.keep ?? base?.keep ?? FOCAL_DEFAULTS.keep,
          layers: f.layers ?? base?.layers ?? FOCAL_DEFAULTS.layers,
          warmup: f.warmup ?? base?.warmup ?? FOCAL_DEFAULTS.warmup,
        }
      : undefined;
  const layers = json.decoder.num_hidden_layers;
  if (focal && focal.layers > layers) throw new UsageError(`--focal-layers ${focal.layers}: the model has ${layers} decoder layers`);
  const maxTokens = requested.maxTokens ?? json.decoding.max_tokens_per_page;
  if (focal && f.warmup !== undefined && f.warmup >= maxTokens)
    throw new UsageError(
      `--focal-warmup ${f.warmup}: at least the token limit per page (${maxTokens}), so focal pruning would never start`,
    );

  if (requested.fixationsFile) {
    if (!focal)
      throw new UsageError(
        "--fixations records what focal pruning keeps: it needs focal pruning on (drop --no-focal, or give --focal-keep)",
      );
    if (json.layout !== "streaming")
      throw new UsageError(
        `--fixations: supported for models in the streaming sequence layout; ${bundleDir} uses the ${json.layout} layout`,
      );
  }
  const learned = json.vision.lines?.layout !== undefined;
  if (requested.readingOrder === "learned" && !learned)
    throw new UsageError(`--reading-order learned: ${bundleDir} has no learned reading order (model.json vision.lines.layout)`);
  return {
    mode,
    documentMode,
    maxTokens,
    attention,
    focal,
    threads: requested.threads,
    fixationsFile: requested.fixationsFile,
    // (XY-cut by default: on the dev set it reads five pages better than the bundle's learned order, and one worse,
    // the rest alike; docs/benchmarks.md, thirty-fourth session)
    readingOrder: requested.readingOrder ?? "xy-cut",
  };
}
