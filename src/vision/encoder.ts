// Runs a bundle's encoder.onnx in onnxruntime-node on a worker thread (session.run blocks), CUDA EP when available, else CPU.
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";

export type EncoderDevice = "auto" | "cpu" | "cuda";

export interface EncoderOptions {
  device?: EncoderDevice;
  /** intra-op threads for the CPU provider (default: onnxruntime's choice) */
  threads?: number;
  /**
   * onnxruntime's CPU memory arena (default on). An arena keeps the most a session has ever needed, each session
   * its own, rounded up to powers of two; without it a run's tensors go back to malloc when it ends and the next
   * session's run reuses them.
   */
  memArena?: boolean;
}

export interface EncoderOutput {
  /** [n_views, rows, cols, hidden] */
  data: Float32Array;
  dims: [number, number, number, number];
}

// The worker is evaluated from a string so the same code runs from src/ under vitest and from dist/;
// it resolves onnxruntime-node from this package, so src/vision stays its only importer. One worker may hold
// several sessions (the line front end's three): one thread, one onnxruntime binding, one V8 isolate.
const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
const { createRequire } = require("node:module");
const ort = createRequire(workerData.resolveFrom)("onnxruntime-node");
const sessions = new Map();
async function open(path) {
  // Memory patterns keep a second arena sized for each new input shape: 496 -> 872 MiB on the second page
  // of a streaming pass, with no speed gain measured; without them the encoder stays near 500 MiB.
  const base = { graphOptimizationLevel: "all", enableMemPattern: false };
  if (workerData.threads) base.intraOpNumThreads = workerData.threads;
  if (workerData.memArena === false) base.enableCpuMemArena = false;
  const attempts = workerData.device === "cpu" ? [["cpu"]] : workerData.device === "cuda" ? [["cuda"]] : workerData.cudaInstalled ? [["cuda", "cpu"], ["cpu"]] : [["cpu"]];
  let lastError;
  for (const providers of attempts) {
    try {
      return [await ort.InferenceSession.create(path, { ...base, executionProviders: providers }), providers[0]];
    } catch (err) { lastError = err; }
  }
  throw lastError;
}
parentPort.on("message", async (msg) => {
  try {
    if (msg.type === "open") {
      const [session, provider] = await open(msg.path);
      sessions.set(msg.session, session);
      parentPort.postMessage({ id: msg.id, ok: true, provider, inputs: session.inputNames, outputs: session.outputNames });
    } else if (msg.type === "feeds") {
      const session = sessions.get(msg.session);
      const feeds = {};
      for (const [name, f] of Object.entries(msg.feeds))
        feeds[name] = new ort.Tensor(f.type, f.type === "int64" ? new BigInt64Array(f.buffer) : new Float32Array(f.buffer), f.dims);
      const result = await session.run(feeds);
      const outputs = {};
      const transfer = [];
      for (const [name, t] of Object.entries(result)) {
        const data = t.data instanceof Float32Array ? new Float32Array(t.data) : Float32Array.from(t.data, Number);
        outputs[name] = { dims: t.dims, buffer: data.buffer };
        transfer.push(data.buffer);
      }
      parentPort.postMessage({ id: msg.id, ok: true, outputs }, transfer);
    } else if (msg.type === "close") {
      const session = sessions.get(msg.session);
      sessions.delete(msg.session);
      if (session) await session.release();
      parentPort.postMessage({ id: msg.id, ok: true });
    }
  } catch (err) {
    parentPort.postMessage({ id: msg.id, ok: false, message: String(err && err.message || err) });
  }
});
`;

/** True when onnxruntime-node's CUDA provider library is installed (npm run install-cuda puts it beside the binding). */
export function cudaProviderInstalled(): boolean {
  const binding = createRequire(import.meta.url).resolve("onnxruntime-node");
  const root = path.resolve(path.dirname(binding), "..");
  const bin = path.join(root, "bin");
  if (!existsSync(bin)) return false;
  for (const napi of readdirSync(bin)) {
    const dir = path.join(bin, napi, process.platform, process.arch);
    if (existsSync(path.join(dir, "libonnxruntime_providers_cuda.so")) || existsSync(path.join(dir, "onnxruntime_providers_cuda.dll")))
      return true;
  }
  return false;
}

interface Reply {
  id: number;
  ok: boolean;
  message?: string;
  provider?: string;
  inputs?: string[];
  outputs?: Record<string, { dims: number[]; buffer: ArrayBuffer }> | string[];
}

/** A named input of `run`: float32 or int64 data with its shape. */
export interface Feed {
  type: "float32" | "int64";
  data: Float32Array | BigInt64Array;
  dims: readonly number[];
}

export class EncoderError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = "EncoderError";
  }
}

/**
 * A worker thread running onnxruntime-node that holds one or more sessions (VisionEncoder); its calls run one
 * after another, in order. Sharing one between the sessions of a front end that runs them in turn saves a thread,
 * an isolate and a binding load per session (3 sessions: about 0.4 s of CPU at start-up, measured).
 */
export class OnnxThread {
  private nextId = 1;
  private nextSession = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void; file: string }>();
  private users = 0;
  private ended = false;
  readonly worker: Worker;

  constructor(readonly options: EncoderOptions = {}) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        device: options.device ?? "auto",
        threads: options.threads,
        memArena: options.memArena,
        cudaInstalled: cudaProviderInstalled(),
        resolveFrom: createRequire(import.meta.url).resolve("onnxruntime-node"),
      },
    });
    this.worker.on("message", (r: Reply) => {
      const p = this.pending.get(r.id);
      if (!p) return;
      this.pending.delete(r.id);
      if (r.ok) p.resolve(r);
      else p.reject(new EncoderError(p.file, r.message ?? "encoder failed"));
    });
    this.worker.on("error", (err) => this.failAll(err));
    this.worker.on("exit", (code) => {
      if (!this.ended) this.failAll(new Error(`encoder worker exited with code ${code}`));
      this.ended = true;
    });
  }

  private failAll(err: Error): void {
    for (const p of this.pending.values()) p.reject(new EncoderError(p.file, err.message));
    this.pending.clear();
  }

  /** A new session id on this thread (a VisionEncoder takes one when it opens). */
  acquire(): number {
    this.users++;
    return this.nextSession++;
  }

  call(file: string, msg: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<Reply> {
    if (this.ended) return Promise.reject(new EncoderError(file, "encoder worker has ended"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, file });
      this.worker.postMessage({ ...msg, id }, transfer);
    });
  }

  /** One user is done; the thread ends with its last user. */
  async release(): Promise<void> {
    if (--this.users > 0 || this.ended) return;
    this.ended = true;
    await this.worker.terminate();
  }
}

/** One encoder session on a worker thread (its own, or an OnnxThread shared with other sessions); calls are queued in order. */
export class VisionEncoder {
  private closed = false;
  /** the model's input and output names, in its order */
  inputNames: string[] = [];
  outputNames: string[] = [];

  private constructor(
    private readonly thread: OnnxThread,
    private readonly session: number,
    readonly path: string,
    public provider: "cpu" | "cuda" = "cpu",
  ) {}

  private call(msg: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<Reply> {
    if (this.closed) return Promise.reject(new EncoderError(this.path, "encoder is closed"));
    return this.thread.call(this.path, { ...msg, session: this.session }, transfer);
  }

  /**
   * Opens an ONNX file on `thread`, or on a thread of its own. `expect` names the inputs and outputs the caller's contract needs
   * (an encoder.onnx: input `pixels`, output `embeddings`).
   */
  static async open(
    path: string,
    options: EncoderOptions = {},
    expect = { inputs: ["pixels"], outputs: ["embeddings"] },
    thread?: OnnxThread,
  ): Promise<VisionEncoder> {
    const host = thread ?? new OnnxThread(options);
    const enc = new VisionEncoder(host, host.acquire(), path);
    try {
      const r = await enc.call({ type: "open", path });
      enc.provider = r.provider === "cuda" ? "cuda" : "cpu";
      const outputs = r.outputs as string[];
      if (!expect.inputs.every((n) => r.inputs?.includes(n)) || !expect.outputs.every((n) => outputs.includes(n)))
        throw new EncoderError(
          path,
          `expected inputs [${expect.inputs}] and outputs [${expect.outputs}], found inputs [${r.inputs}] outputs [${outputs}]`,
        );
      enc.inputNames = r.inputs!;
      enc.outputNames = outputs;
    } catch (err) {
      await enc.close().catch(() => undefined);
      if (host.options.device === "cuda" && !cudaProviderInstalled())
        throw new EncoderError(path, "the CUDA execution provider is not installed (run: npm run install-cuda), or use --device cpu");
      throw err;
    }
    return enc;
  }

  /**
   * pixels [n_views, 3, H, W] → embeddings [n_views, rows, cols, hidden]. The pixel buffer is transferred to
   * the worker (it is detached afterwards); pass a copy to keep using it.
   */
  async encode(pixels: Float32Array, dims: [number, number, number, number]): Promise<EncoderOutput> {
    const [n, c, h, w] = dims;
    if (c !== 3 || pixels.length !== n * c * h * w)
      throw new EncoderError(this.path, `pixels hold ${pixels.length} values, dims [${dims}] need ${n * c * h * w} with 3 channels`);
    const out = (await this.run({ pixels: { type: "float32", data: pixels, dims } }, { transfer: true })).embeddings!;
    if (out.dims.length !== 4 || out.dims[0] !== n)
      throw new EncoderError(this.path, `embeddings have shape [${out.dims}], expected [${n}, rows, cols, hidden]`);
    return { data: out.data, dims: out.dims as [number, number, number, number] };
  }

  /**
   * Runs the model on named inputs; every output comes back as float32. Inputs are copied to the worker, or
   * with `transfer` handed over when they own their whole buffer (the caller's arrays are detached then).
   */
  async run(
    feeds: Record<string, Feed>,
    options: { transfer?: boolean } = {},
  ): Promise<Record<string, { data: Float32Array; dims: number[] }>> {
    const msg: Record<string, { type: string; buffer: ArrayBuffer; dims: readonly number[] }> = {};
    const transfer: ArrayBuffer[] = [];
    for (const [name, f] of Object.entries(feeds)) {
      const whole = f.data.byteOffset === 0 && f.data.byteLength === f.data.buffer.byteLength;
      const data = options.transfer && whole ? f.data : f.data.slice();
      msg[name] = { type: f.type, buffer: data.buffer as ArrayBuffer, dims: f.dims };
      transfer.push(data.buffer as ArrayBuffer);
    }
    const r = await this.call({ type: "feeds", feeds: msg }, transfer);
    const out: Record<string, { data: Float32Array; dims: number[] }> = {};
    for (const [name, o] of Object.entries(r.outputs as Record<string, { dims: number[]; buffer: ArrayBuffer }>))
      out[name] = { data: new Float32Array(o.buffer), dims: o.dims };
    return out;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.call({ type: "close" });
    } catch {
      // a worker that already died has nothing left to release
    }
    this.closed = true;
    await this.thread.release();
  }
}
