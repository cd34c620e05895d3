// The native decoder's TypeScript API: Decoder.load(dir) maps a checkpoint, sessions extend / retire / generate.
import { availableParallelism } from "node:os";
import { readFile } from "node:fs/promises";
import path from "node:path";
import {
  loadAddon,
  NATIVE_DECODER_KEYS,
  type NativeDecoderConfig,
  type NativeDtype,
  type NativeDecoder,
  type NativeDecoderInfo,
  type NativeSession,
} from "./binding.js";
import { badOption, DecoderError, fromNative } from "./errors.js";

export type KvDtype = NativeDtype;
/** "avx512bf16" (opt-in) multiplies bf16 weights with bf16-rounded activations (_mm512_dpbf16_ps). */
export type KernelChoice = "auto" | "ref" | "avx2" | "avx512" | "avx512bf16";

export interface DecoderOptions {
  /** Worker threads for one forward pass (default: the machine's cores). */
  threads?: number;
  /** Kernel set; "auto" (default) picks the fastest this CPU supports. */
  kernels?: KernelChoice;
  /** Ops below this many multiply-adds run on one thread (default 262144; tests pass 0 to exercise the pool). */
  minParallelWork?: number;
  /**
   * How the weights are held (ops/safetensors.h): "map" the file mapping (2 MB-aligned, advised for huge pages);
   * "copy" a copy in anonymous memory advised for huge pages; "auto" (default) maps, and copies a file of 64 MB or
   * more whose mapping holds under half its bytes in huge pages (a page cache of 4 KB folios, as a file just
   * written leaves): decode streams every weight each step, and 4 KB pages halved its speed.
   */
  pages?: WeightPages;
}

export type WeightPages = "auto" | "map" | "copy";

/** Which generated entries a step attends (extended entries are attended until retired). */
export type AttentionPolicy = { kind: "full" } | { kind: "rswa"; window: number };

/** Focal pruning (FastOCR, training-free) of visual entries on decode steps. */
export interface FocalOptions {
  /** Share tau of the visual entries a focal layer keeps, 0 < keep <= 1 (1 = exactly unpruned). */
  keep: number;
  /** Number of focal layers, chosen after the warm-up by their share of attention on visual entries. */
  layers: number;
  /** Decode steps run with full attention after each view enters (>= 1); the session's first ones measure that share. */
  warmup: number;
}

export interface SessionOptions {
  /** KV cache element type (default f32). */
  kvDtype?: KvDtype;
  /** Default full attention. */
  attention?: AttentionPolicy;
  /** Focal pruning on top of the attention policy (default off). */
  focal?: FocalOptions;
  /** Record, per focal decode step, the visual positions kept (read them with takeFixations). */
  recordFixations?: boolean;
}

/** The visual positions the last focal layer kept while the entry at `position` was fed (it produced the next token). */
export interface Fixation {
  position: number;
  visual: number[];
}

/** Entries to append: token ids, with embedding rows placed at given indices of this call's sequence. */
export interface ExtendInput {
  tokens: ArrayLike<number>;
  /** [rows, hidden] row-major, e.g. visual tokens. */
  embeddings?: Float32Array;
  /** Index in the combined sequence (tokens.length + rows entries) of each embedding row, ascending.
   *  Default: the rows come after the tokens. */
  embeddingPositions?: ArrayLike<number>;
}

export interface ExtendOptions {
  /** Return the hidden state after every layer for every new entry ([layers, n, hidden]). */
  captureHidden?: boolean;
  /** Return the logits of every new entry ([n, vocab]) instead of only the last. */
  allLogits?: boolean;
}

export interface ExtendResult {
  /** Logits of the last entry ([vocab]) or, with allLogits, of every new entry ([n, vocab]). */
  logits: Float32Array;
  hidden?: Float32Array;
  /** Position of the first appended entry. */
  start: number;
  /** Number of entries appended. */
  count: number;
}

export interface NoRepeatRule {
  /** n-gram size (the rule bans the token that would repeat an n-gram). */
  n: number;
  /** Look back over this many generated tokens (0 = all); model.json calls it `no_repeat_ngram.window`. */
  lookback: number;
  /** Tokens never banned (e.g. <td>, </td>). */
  exempt?: readonly number[];
}

export interface GenerateOptions {
  maxTokens: number;
  stopTokens?: readonly number[];
  noRepeat?: NoRepeatRule;
  /** Run caps: token id -> the most times it may appear in a row (>= 1); it is banned once its run is that long. */
  maxRun?: ReadonlyMap<number, number>;
  /** Tokens never generated in this call (a script the line does not use); where every token is banned, the ban is lifted. */
  ban?: readonly number[];
  /** Report each generated token's runner-up (GenerateResult.alternatives). */
  alternatives?: boolean;
}

/** Runner-ups reported per generated token (GenerateResult.alternatives; ops/session.h Alternative). */
export const RUNNER_UPS = 3;

export interface GenerateResult {
  /** "stop": a stop token was generated (it is the last token); "length": maxTokens reached. */
  reason: "stop" | "length" | "cancelled";
  tokens: number[];
  /** Where asked for (GenerateOptions.alternatives): per token of `tokens`, RUNNER_UPS entries, the tokens the step
   * ranked next among those it allowed, best first (-1: none), and how many logits below the chosen one each stood. */
  alternatives?: { tokens: Int32Array; margins: Float32Array };
}

/** Tokens as they are generated; `result` settles when generation ends. */
export interface TokenStream extends AsyncIterableIterator<number> {
  readonly result: Promise<GenerateResult>;
  /** Stops after the token being computed (reason "cancelled"). */
  cancel(): void;
}

export interface SessionStats {
  /** Entries ever appended (positions count every one). */
  length: number;
  /** Entries currently attended (not retired, inside the window). */
  liveEntries: number;
  /** Bytes of KV cache allocated. */
  cacheBytes: number;
  /** Single-entry forward passes so far (generated tokens fed back) and their total time. */
  decodeSteps: number;
  decodeMs: number;
  /** Attention time within those steps (key lists, kernels, focal selection). */
  attentionMs: number;
  /** Focal layers chosen after the warm-up (empty before it or with focal pruning off). */
  focalLayers: number[];
}

function checkInt(v: unknown, option: string, min: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min) throw badOption(`an integer >= ${min}`, option, v);
  return v;
}

function toInt32(v: ArrayLike<number>, option: string): Int32Array {
  const out = new Int32Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (typeof x !== "number" || !Number.isInteger(x) || x < 0 || x > 0x7fffffff)
      throw badOption("non-negative integer ids", `${option}[${i}]`, x);
    out[i] = x;
  }
  return out;
}

/** Reads the decoder numbers the native decoder needs, with clear errors (the bundle loader checks the rest). */
export function nativeConfig(decoder: Record<string, unknown>, file: string): NativeDecoderConfig {
  const ints = [
    "vocab_size",
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "intermediate_size",
    "moe_intermediate_size",
    "n_routed_experts",
    "num_experts_per_tok",
    "n_shared_experts",
    "first_k_dense_replace",
  ] as const;
  const out: Record<string, number | boolean> = {};
  for (const k of ints) {
    const v = decoder[k];
    const min = ["moe_intermediate_size", "n_routed_experts", "num_experts_per_tok", "n_shared_experts", "first_k_dense_replace"].includes(
      k,
    )
      ? 0
      : 1;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min)
      throw new DecoderError("BAD_CONFIG", `${file}: decoder.${k} must be an integer >= ${min} (found ${JSON.stringify(v)})`);
    out[k] = v;
  }
  for (const k of ["routed_scaling_factor", "rms_norm_eps", "rope_theta"] as const) {
    const v = decoder[k];
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0)
      throw new DecoderError("BAD_CONFIG", `${file}: decoder.${k} must be a positive number (found ${JSON.stringify(v)})`);
    out[k] = v;
  }
  for (const k of ["norm_topk_prob", "tie_word_embeddings"] as const) {
    const v = decoder[k];
    if (typeof v !== "boolean")
      throw new DecoderError("BAD_CONFIG", `${file}: decoder.${k} must be true or false (found ${JSON.stringify(v)})`);
    out[k] = v;
  }
  for (const [k, allowed] of [
    ["scoring_func", "softmax"],
    ["topk_method", "greedy"],
  ] as const)
    if (decoder[k] !== undefined && decoder[k] !== allowed)
      throw new DecoderError(
        "BAD_CONFIG",
        `${file}: decoder.${k} ${JSON.stringify(decoder[k])} is not supported (only ${JSON.stringify(allowed)})`,
      );
  const c = out as unknown as NativeDecoderConfig;
  if (c.num_attention_heads % c.num_key_value_heads !== 0)
    throw new DecoderError("BAD_CONFIG", `${file}: decoder.num_key_value_heads must divide num_attention_heads`);
  if (c.head_dim % 2 !== 0) throw new DecoderError("BAD_CONFIG", `${file}: decoder.head_dim must be even (rotary halves)`);
  if (c.n_routed_experts > 0 && (c.num_experts_per_tok < 1 || c.num_experts_per_tok > c.n_routed_experts))
    throw new DecoderError("BAD_CONFIG", `${file}: decoder.num_experts_per_tok must be in 1..n_routed_experts`);
  return c;
}

function checkFocal(f: FocalOptions, layers: number): FocalOptions {
  if (typeof f.keep !== "number" || !(f.keep > 0 && f.keep <= 1)) throw badOption("a number in (0, 1]", "focal.keep", f.keep);
  const out = { keep: f.keep, layers: checkInt(f.layers, "focal.layers", 1), warmup: checkInt(f.warmup, "focal.warmup", 1) };
  if (out.layers > layers) throw badOption(`an integer <= ${layers} (the decoder's layers)`, "focal.layers", f.layers);
  return out;
}

/** What Decoder.fromBundle reads of a loaded bundle (src/model/bundle.ts Bundle has this shape). */
export interface ValidatedBundle {
  dir: string;
  json: { decoder: NativeDecoderConfig & { weights: string[] } };
}

export class Decoder {
  readonly config: NativeDecoderConfig;
  readonly info: NativeDecoderInfo;
  /** @internal */
  readonly native: NativeDecoder;

  private constructor(config: NativeDecoderConfig, native: NativeDecoder) {
    this.config = config;
    this.native = native;
    this.info = native.info();
  }

  /** Bytes of the weights held in huge pages now (a file mapping's grow as its pages are first read; 0 where unknown). */
  hugePageBytes(): number {
    return this.native.hugePageBytes();
  }

  /** Loads the decoder of a bundle folder (model.json `decoder` section + its safetensors). */
  static async load(dir: string, options: DecoderOptions = {}): Promise<Decoder> {
    const file = path.join(path.resolve(dir), "model.json");
    let json: { decoder?: Record<string, unknown> };
    try {
      json = JSON.parse(await readFile(file, "utf8")) as { decoder?: Record<string, unknown> };
    } catch (err) {
      throw new DecoderError("BAD_CONFIG", `${file}: cannot read the model description (${(err as Error).message})`, { cause: err });
    }
    const decoder = json?.decoder;
    if (!decoder || typeof decoder !== "object") throw new DecoderError("BAD_CONFIG", `${file}: no "decoder" section`);
    const weights = decoder.weights;
    if (
      !Array.isArray(weights) ||
      weights.length === 0 ||
      !weights.every((w) => typeof w === "string" && w.length > 0 && !path.isAbsolute(w) && !w.split(/[\\/]/).includes(".."))
    )
      throw new DecoderError("BAD_CONFIG", `${file}: decoder.weights must list file names inside the bundle folder`);
    return Decoder.fromConfig(
      nativeConfig(decoder, file),
      (weights as string[]).map((w) => path.join(path.dirname(file), w)),
      options,
    );
  }

  /**
   * Builds the decoder of a bundle whose model.json was already read and validated (src/model/bundle.ts
   * loadBundle, src/model/schema.ts): nothing is read or checked again. `Decoder.load` is the standalone path
   * (tests, benchmarks) that reads model.json itself.
   */
  static fromBundle(bundle: ValidatedBundle, options: DecoderOptions = {}): Decoder {
    const d = bundle.json.decoder;
    const config = Object.fromEntries(NATIVE_DECODER_KEYS.map((k) => [k, d[k]])) as unknown as NativeDecoderConfig;
    return Decoder.fromConfig(
      config,
      d.weights.map((w) => path.join(bundle.dir, w)),
      options,
    );
  }

  /** Loads from an already validated config and absolute weight paths (.safetensors files or one *.index.json). */
  static fromConfig(config: NativeDecoderConfig, weightPaths: string[], options: DecoderOptions = {}): Decoder {
    const threads = options.threads ?? availableParallelism();
    checkInt(threads, "threads", 1);
    const kernels = options.kernels ?? "auto";
    if (!["auto", "ref", "avx2", "avx512", "avx512bf16"].includes(kernels))
      throw badOption('"auto", "ref", "avx2", "avx512" or "avx512bf16"', "kernels", kernels);
    const pages = options.pages ?? "auto";
    if (!["auto", "map", "copy"].includes(pages)) throw badOption('"auto", "map" or "copy"', "pages", pages);
    const minParallelWork = options.minParallelWork ?? 1 << 18;
    checkInt(minParallelWork, "minParallelWork", 0);
    const addon = loadAddon();
    try {
      return new Decoder(
        config,
        new addon.NativeDecoder(config, weightPaths, { threads, kernels: kernels === "auto" ? "" : kernels, minParallelWork, pages }),
      );
    } catch (err) {
      throw fromNative(err);
    }
  }

  createSession(options: SessionOptions = {}): Session {
    const kvDtype = options.kvDtype ?? "f32";
    if (!["f32", "f16", "bf16"].includes(kvDtype)) throw badOption('"f32", "f16" or "bf16"', "kvDtype", kvDtype);
    const policy = options.attention ?? { kind: "full" };
    let window = 0;
    if (policy.kind === "rswa") window = checkInt(policy.window, "attention.window", 1);
    else if (policy.kind !== "full") throw badOption('{ kind: "full" } or { kind: "rswa", window }', "attention", policy);
    const focal = options.focal ? checkFocal(options.focal, this.config.num_hidden_layers) : undefined;
    const addon = loadAddon();
    try {
      return new Session(
        this,
        new addon.NativeSession(this.native, { kvDtype, window, focal, recordFixations: !!options.recordFixations }),
      );
    } catch (err) {
      throw fromNative(err);
    }
  }
}

export class Session {
  readonly decoder: Decoder;
  private readonly native: NativeSession;

  /** @internal */
  constructor(decoder: Decoder, native: NativeSession) {
    this.decoder = decoder;
    this.native = native;
  }

  /** Appends entries (the prefix, or a later page) and runs them as one matrix-matrix pass. */
  async prefill(input: ExtendInput, options: ExtendOptions = {}): Promise<ExtendResult> {
    const hidden = this.decoder.config.hidden_size;
    const tokens = toInt32(input.tokens, "tokens");
    const emb = input.embeddings;
    if (emb !== undefined && !(emb instanceof Float32Array)) throw badOption("a Float32Array", "embeddings", emb);
    const rows = emb ? emb.length / hidden : 0;
    if (!Number.isInteger(rows))
      throw badOption(`a Float32Array whose length is a multiple of ${hidden}`, "embeddings", `${emb?.length} values`);
    const total = tokens.length + rows;
    if (total === 0) throw badOption("at least one token or embedding row", "tokens", input.tokens);
    const seq = new Int32Array(total);
    const at = input.embeddingPositions
      ? toInt32(input.embeddingPositions, "embeddingPositions")
      : Int32Array.from({ length: rows }, (_, i) => tokens.length + i);
    if (at.length !== rows) throw badOption(`${rows} positions (one per embedding row)`, "embeddingPositions", `${at.length}`);
    const isEmbed = new Uint8Array(total);
    for (let i = 0; i < at.length; i++) {
      const p = at[i]!;
      if (p >= total || (i > 0 && p <= at[i - 1]!)) throw badOption(`ascending indices below ${total}`, `embeddingPositions[${i}]`, p);
      isEmbed[p] = 1;
    }
    let t = 0;
    for (let i = 0; i < total; i++) seq[i] = isEmbed[i] ? -1 : tokens[t++]!;
    try {
      const start = this.native.stats().length;
      const r = await this.native.extend(seq, emb ?? null, { hidden: !!options.captureHidden, allLogits: !!options.allLogits });
      return { logits: r.logits, hidden: r.hidden, start, count: total };
    } catch (err) {
      throw fromNative(err);
    }
  }

  /** Same as prefill: appends entries at any point (e.g. the next page's visual tokens). */
  extend(input: ExtendInput, options?: ExtendOptions): Promise<ExtendResult> {
    return this.prefill(input, options);
  }

  /** Stops attending entries at positions [start, end) and reuses their cache memory. */
  async retire(start: number, end: number): Promise<void> {
    checkInt(start, "start", 0);
    checkInt(end, "end", start);
    try {
      await this.native.retire(start, end);
    } catch (err) {
      throw fromNative(err);
    }
  }

  /** Greedy decoding; iterate the stream for tokens as they come. */
  generate(options: GenerateOptions): TokenStream {
    checkInt(options.maxTokens, "maxTokens", 0);
    const stop = toInt32(options.stopTokens ?? [], "stopTokens");
    let noRepeat: { n: number; lookback: number; exempt: Int32Array } | undefined;
    if (options.noRepeat) {
      noRepeat = {
        n: checkInt(options.noRepeat.n, "noRepeat.n", 1),
        lookback: checkInt(options.noRepeat.lookback, "noRepeat.lookback", 0),
        exempt: toInt32(options.noRepeat.exempt ?? [], "noRepeat.exempt"),
      };
    }
    let maxRun: Int32Array | undefined;
    if (options.maxRun?.size) {
      const vocab = this.decoder.config.vocab_size;
      maxRun = new Int32Array(vocab);
      for (const [token, run] of options.maxRun) {
        if (!Number.isInteger(token) || token < 0 || token >= vocab) throw badOption(`a token id below ${vocab}`, "maxRun", token);
        maxRun[token] = checkInt(run, `maxRun[${token}]`, 1);
      }
    }
    let ban: Int32Array | undefined;
    if (options.ban?.length) {
      const vocab = this.decoder.config.vocab_size;
      for (const token of options.ban)
        if (!Number.isInteger(token) || token < 0 || token >= vocab) throw badOption(`a token id below ${vocab}`, "ban", token);
      ban = Int32Array.from(options.ban);
    }
    const queue: number[] = [];
    const all: number[] = [];
    let done = false;
    let failure: unknown;
    let wake: (() => void) | undefined;
    const notify = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    let native: ReturnType<NativeSession["generate"]>;
    try {
      const alternatives = options.alternatives === true;
      native = this.native.generate({ maxTokens: options.maxTokens, stopTokens: stop, noRepeat, maxRun, ban, alternatives }, (tokens) => {
        for (const t of tokens) {
          queue.push(t);
          all.push(t);
        }
        notify();
      });
    } catch (err) {
      native = Promise.reject(err);
    }
    const result: Promise<GenerateResult> = native.then(
      (r) => {
        done = true;
        notify();
        return r.runnerUps && r.margins
          ? { reason: r.reason, tokens: all, alternatives: { tokens: r.runnerUps, margins: r.margins } }
          : { reason: r.reason, tokens: all };
      },
      (err) => {
        done = true;
        failure = fromNative(err);
        notify();
        throw failure;
      },
    );
    result.catch(() => {}); // surfaced through the iterator or by awaiting result
    const self = this.native;
    const stream: TokenStream = {
      result,
      cancel: () => self.cancel(),
      async next(): Promise<IteratorResult<number>> {
        while (queue.length === 0 && !done) await new Promise<void>((r) => (wake = r));
        if (queue.length > 0) return { value: queue.shift()!, done: false };
        if (failure) throw failure;
        return { value: undefined, done: true };
      },
      async return(): Promise<IteratorResult<number>> {
        self.cancel();
        await result.catch(() => {});
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return stream;
      },
    };
    return stream;
  }

  stats(): SessionStats {
    let s: ReturnType<NativeSession["stats"]>;
    try {
      s = this.native.stats();
    } catch (err) {
      throw fromNative(err);
    }
    return {
      length: s.length,
      liveEntries: s.liveEntries,
      cacheBytes: s.cacheBytes,
      decodeSteps: s.decodeSteps,
      decodeMs: s.decodeMs,
      attentionMs: s.attentionMs,
      focalLayers: s.focalLayers,
    };
  }

  /** Changes focal pruning from the next decode step (undefined: off); its warm-up starts over. */
  setFocal(focal: FocalOptions | undefined): void {
    const f = focal ? checkFocal(focal, this.decoder.config.num_hidden_layers) : null;
    try {
      this.native.setFocal(f);
    } catch (err) {
      throw fromNative(err);
    }
  }

  /** Fixations recorded since the last call (needs recordFixations). */
  takeFixations(): Fixation[] {
    try {
      return this.native.takeFixations().map((f) => ({ position: f.position, visual: Array.from(f.visual) }));
    } catch (err) {
      throw fromNative(err);
    }
  }

  /** Frees the KV cache now (otherwise at garbage collection); later calls fail with BAD_STATE. */
  dispose(): void {
    try {
      this.native.dispose();
    } catch (err) {
      throw fromNative(err);
    }
  }

  /** Logits after the latest entry ([vocab]); the next greedy token is chosen from them. */
  lastLogits(): Float32Array {
    try {
      return this.native.lastLogits();
    } catch (err) {
      throw fromNative(err);
    }
  }
}
