// Block quantisation of a bundle's decoder matrices (`ocr models quantize`): llama.cpp's q8_0 and q4_1 blocks, byte for
// byte (ops/common.h reads them). A row of `cols` weights (cols a multiple of 32) is cols / 32 blocks:
//   q8_0: f16 d, 32 x int8 q           w = d * q,      d = max|w| / 127        34 bytes per 32 weights
//   q4_1: f16 d, f16 m, 16 bytes       w = d * q + m,  d = (max - min) / 15,   20 bytes per 32 weights
//         (q[j] in the low nibble of byte j, q[j + 16] in its high nibble)       m = min
// q is rounded against the stored (f16) d and m, so dequantising reproduces the nearest representable weight.
// Quantised: the attention projections, the dense / routed / shared expert MLPs and an untied lm_head. The router,
// the norms and the embeddings stay as they are (float), as llama.cpp keeps them.
import { existsSync } from "node:fs";
import { mkdir, open, readdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { ModelFileError } from "./errors.js";
import { dtypeBytes, QUANT_BLOCK_BYTES, readWeightsIndex, type QuantFormat, type TensorInfo } from "./safetensors.js";

export type QuantTarget = "q8" | "q4";
/** The block format each `--to` value writes. */
export const QUANT_FORMAT: Record<QuantTarget, QuantFormat> = { q8: "q8_0", q4: "q4_1" };
export const QUANT_BLOCK = 32;

/** Decoder tensors that are quantised (everything else is copied unchanged). */
export function isQuantizable(name: string): boolean {
  return (
    /^model\.layers\.\d+\.self_attn\.[qkvo]_proj\.weight$/.test(name) ||
    /^model\.layers\.\d+\.mlp\.(experts\.\d+\.|shared_experts\.)?(gate|up|down)_proj\.weight$/.test(name) ||
    name === "lm_head.weight"
  );
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE half bits of `v`, rounded to nearest even (overflow to infinity, underflow through subnormals to zero). */
export function f32ToF16(v: number): number {
  f32[0] = v;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rem > halfway || (rem === halfway && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++; // a carry into the exponent is the right result
  return sign | half;
}

export function f16ToF32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** Bytes of one quantised row of `cols` weights. */
export function quantRowBytes(format: QuantFormat, cols: number): number {
  return (cols / QUANT_BLOCK) * QUANT_BLOCK_BYTES[format];
}

const roundAway = (v: number) => (v < 0 ? -Math.round(-v) : Math.round(v)); // C roundf: halves away from zero

/**
 * Quantises `rows` rows of `cols` f32 weights (row-major in `src`) into `out` (rows x quantRowBytes bytes).
 * cols must be a multiple of 32.
 */
export function quantizeRows(format: QuantFormat, src: Float32Array, rows: number, cols: number, out: Uint8Array): void {
  if (cols % QUANT_BLOCK !== 0) throw new Error(`quantizeRows: ${cols} columns is not a multiple of ${QUANT_BLOCK}`);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const bb = QUANT_BLOCK_BYTES[format];
  const blocks = (rows * cols) / QUANT_BLOCK;
  for (let b = 0; b < blocks; b++) {
    const s = b * QUANT_BLOCK;
    const o = b * bb;
    if (format === "q8_0") {
      let amax = 0;
      for (let j = 0; j < QUANT_BLOCK; j++) amax = Math.max(amax, Math.abs(src[s + j]!));
      const dh = f32ToF16(amax / 127);
      const d = f16ToF32(dh);
      const id = d ? 1 / d : 0;
      view.setUint16(o, dh, true);
      for (let j = 0; j < QUANT_BLOCK; j++) view.setInt8(o + 2 + j, Math.max(-127, Math.min(127, roundAway(src[s + j]! * id))));
    } else {
      let mn = Number.POSITIVE_INFINITY;
      let mx = Number.NEGATIVE_INFINITY;
      for (let j = 0; j < QUANT_BLOCK; j++) {
        const v = src[s + j]!;
        if (v < mn) mn = v;
        if (v > mx) mx = v;
      }
      const dh = f32ToF16((mx - mn) / 15);
      const mh = f32ToF16(mn);
      const d = f16ToF32(dh);
      const m = f16ToF32(mh);
      const id = d ? 1 / d : 0;
      view.setUint16(o, dh, true);
      view.setUint16(o + 2, mh, true);
      for (let j = 0; j < 16; j++) {
        const lo = Math.max(0, Math.min(15, roundAway((src[s + j]! - m) * id)));
        const hi = Math.max(0, Math.min(15, roundAway((src[s + j + 16]! - m) * id)));
        out[o + 4 + j] = lo | (hi << 4);
      }
    }
  }
}

/** The weights a quantised buffer stands for (d * q, or d * q + m), as the engine's reference kernels read them. */
export function dequantizeRows(format: QuantFormat, bytes: Uint8Array, rows: number, cols: number): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(rows * cols);
  const bb = QUANT_BLOCK_BYTES[format];
  for (let b = 0; b < (rows * cols) / QUANT_BLOCK; b++) {
    const o = b * bb;
    const d = f16ToF32(view.getUint16(o, true));
    for (let j = 0; j < QUANT_BLOCK; j++) {
      if (format === "q8_0") out[b * QUANT_BLOCK + j] = Math.fround(d * view.getInt8(o + 2 + j));
      else {
        const m = f16ToF32(view.getUint16(o + 2, true));
        const q = j < 16 ? bytes[o + 4 + j]! & 15 : bytes[o + 4 + j - 16]! >> 4;
        out[b * QUANT_BLOCK + j] = Math.fround(d * q + m);
      }
    }
  }
  return out;
}

/** Converts `count` stored elements (F32, F16 or BF16 little-endian) to f32. */
function toF32(dtype: string, bytes: Uint8Array, count: number): Float32Array {
  const out = new Float32Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dtype === "F32") for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, true);
  else if (dtype === "BF16") {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < count; i++) bits[i] = view.getUint16(i * 2, true) << 16;
  } else for (let i = 0; i < count; i++) out[i] = f16ToF32(view.getUint16(i * 2, true));
  return out;
}

export interface QuantizeOptions {
  to: QuantTarget;
  out: string;
  log?: (line: string) => void;
}

export interface QuantizeResult {
  dir: string;
  format: QuantFormat;
  quantized: number;
  kept: number;
  bytesIn: number;
  bytesOut: number;
}

/** The tensor's bytes as stored, in chunks of whole rows (at most ~32 MB at a time). */
async function* rowChunks(info: TensorInfo): AsyncGenerator<{ rows: number; bytes: Uint8Array }> {
  const rows = info.shape.length >= 1 ? info.shape[0]! : 1;
  const rowBytes = rows > 0 ? info.byteLength / rows : 0;
  const per = Math.max(1, Math.floor((32 << 20) / Math.max(1, rowBytes)));
  const fh = await open(info.file, "r");
  try {
    for (let r = 0; r < rows; r += per) {
      const n = Math.min(per, rows - r);
      const bytes = new Uint8Array(n * rowBytes);
      const { bytesRead } = await fh.read(bytes, 0, bytes.length, info.offset + r * rowBytes);
      if (bytesRead !== bytes.length) throw new ModelFileError(info.file, `tensor ${info.name}: short read (truncated file?)`);
      yield { rows: n, bytes };
    }
  } finally {
    await fh.close();
  }
}

/**
 * Writes a copy of the bundle in `dir` with its decoder matrices block-quantised: DIR/model.safetensors (float tensors
 * first, then the U8 blocks; metadata "ocr.quant.<name>" names each quantised tensor's format), DIR/model.json (the
 * source's, with decoder.weights = ["model.safetensors"] and decoder.quantization set) and links to every other file
 * of the bundle (encoder, tokenizer, ...).
 */
export async function quantizeBundle(dir: string, options: QuantizeOptions): Promise<QuantizeResult> {
  const format = QUANT_FORMAT[options.to];
  if (!format) throw new Error(`quantizeBundle: --to must be q8 or q4, not ${String(options.to)}`);
  const log = options.log ?? (() => {});
  const src = path.resolve(dir);
  const modelJson = path.join(src, "model.json");
  let json: { decoder?: { weights?: unknown; quantization?: unknown; tie_word_embeddings?: unknown } } & Record<string, unknown>;
  try {
    json = JSON.parse(await readFile(modelJson, "utf8"));
  } catch (err) {
    throw new ModelFileError(modelJson, `cannot read the bundle description (${(err as Error).message})`, { cause: err });
  }
  const weights = json?.decoder?.weights;
  if (!Array.isArray(weights) || weights.length === 0 || !weights.every((w) => typeof w === "string" && w.length > 0))
    throw new ModelFileError(modelJson, "decoder.weights must list the decoder's safetensors files");
  if (json.decoder!.quantization !== undefined)
    throw new ModelFileError(
      modelJson,
      `the bundle is already quantised (${String(json.decoder!.quantization)}); quantise its float source instead`,
    );
  const out = path.resolve(options.out);
  if (out === src) throw new ModelFileError(out, "--out must be a folder other than the bundle's own");
  if (existsSync(path.join(out, "model.json")))
    throw new ModelFileError(path.join(out, "model.json"), "already exists: choose an empty --out folder");
  const tensors = await readWeightsIndex(src, weights as string[]);

  // Wide elements first (F32, then 16-bit: every offset stays aligned to its element), then bytes and the U8 blocks.
  const plan = [...tensors.values()].map((t) => {
    const quantize = isQuantizable(t.name) && t.shape.length === 2 && t.shape[1]! % QUANT_BLOCK === 0 && !t.quant;
    if (isQuantizable(t.name) && !quantize)
      log(`quantize: ${t.name} ${JSON.stringify(t.shape)} stays ${t.dtype} (columns not a multiple of 32)`);
    if (quantize && !["F32", "F16", "BF16"].includes(t.dtype))
      throw new ModelFileError(t.file, `tensor ${t.name} is ${t.dtype}; expected F32, F16 or BF16`);
    const size = t.quant ? 1 : dtypeBytes(t.dtype);
    const rank = quantize || size === 1 ? 2 : size === 2 ? 1 : 0;
    const bytes = quantize ? t.shape[0]! * quantRowBytes(format, t.shape[1]!) : t.byteLength;
    return { t, quantize, rank, bytes };
  });
  plan.sort((a, b) => a.rank - b.rank || a.t.name.localeCompare(b.t.name));
  const header: Record<string, unknown> = {};
  const metadata: Record<string, string> = { format: "pt", "ocr.quantization": format };
  let offset = 0;
  for (const p of plan) {
    const shape = p.quantize
      ? [p.t.shape[0]!, quantRowBytes(format, p.t.shape[1]!)]
      : p.t.quant
        ? [p.t.shape[0]!, p.t.byteLength / p.t.shape[0]!]
        : p.t.shape;
    header[p.t.name] = { dtype: p.quantize ? "U8" : p.t.dtype, shape, data_offsets: [offset, offset + p.bytes] };
    if (p.quantize) metadata[`ocr.quant.${p.t.name}`] = format;
    offset += p.bytes;
  }
  let headerText = JSON.stringify({ __metadata__: metadata, ...header });
  headerText += " ".repeat((8 - (Buffer.byteLength(headerText) % 8)) % 8);
  const headerBytes = Buffer.from(headerText, "utf8");

  await mkdir(out, { recursive: true });
  const target = path.join(out, "model.safetensors");
  const tmp = `${target}.tmp`;
  const fh = await open(tmp, "w");
  let bytesIn = 0;
  let done = 0;
  try {
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(headerBytes.length));
    await fh.write(len);
    await fh.write(headerBytes);
    for (const p of plan) {
      bytesIn += p.t.byteLength;
      for await (const chunk of rowChunks(p.t)) {
        if (!p.quantize) {
          await fh.write(chunk.bytes);
          continue;
        }
        const cols = p.t.shape[1]!;
        const q = new Uint8Array(chunk.rows * quantRowBytes(format, cols));
        quantizeRows(format, toF32(p.t.dtype, chunk.bytes, chunk.rows * cols), chunk.rows, cols, q);
        await fh.write(q);
      }
      if (++done % 200 === 0) log(`quantize: ${done}/${plan.length} tensors`);
    }
  } finally {
    await fh.close();
  }
  await rename(tmp, target);

  const decoder = { ...(json.decoder as Record<string, unknown>), weights: ["model.safetensors"], quantization: format };
  await writeFile(path.join(out, "model.json"), JSON.stringify({ ...json, decoder }, null, 1) + "\n");
  // Everything else the bundle holds (encoder, tokenizer, line models, ...) is linked, not copied.
  const weightFiles = new Set<string>(weights as string[]);
  for (const t of tensors.values()) weightFiles.add(path.relative(src, t.file));
  for (const entry of await readdir(src)) {
    if (entry === "model.json" || weightFiles.has(entry) || existsSync(path.join(out, entry))) continue;
    await symlink(path.join(src, entry), path.join(out, entry));
  }
  const quantized = plan.filter((p) => p.quantize).length;
  return { dir: out, format, quantized, kept: plan.length - quantized, bytesIn, bytesOut: offset };
}
