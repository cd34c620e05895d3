// Reads and validates safetensors headers (single files and sharded index.json) without loading tensor data.
import { open, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { ModelFileError } from "./errors.js";

export type SafetensorsDtype = "F32" | "F16" | "BF16" | "F64" | "I64" | "I32" | "I16" | "I8" | "U8" | "BOOL";

const DTYPE_BYTES: Record<SafetensorsDtype, number> = {
  F64: 8,
  F32: 4,
  F16: 2,
  BF16: 2,
  I64: 8,
  I32: 4,
  I16: 2,
  I8: 1,
  U8: 1,
  BOOL: 1,
};

/** Cap on the JSON header: real checkpoints stay far below; a bigger one is a corrupt or hostile file. */
const MAX_HEADER_BYTES = 100 * 1024 * 1024;

/** Block-quantised weight formats (llama.cpp block_q8_0 / block_q4_1; src/model/quantize.ts). */
export type QuantFormat = "q8_0" | "q4_1";

/** Bytes of one 32-weight block. */
export const QUANT_BLOCK_BYTES: Record<QuantFormat, number> = { q8_0: 34, q4_1: 20 };

export interface TensorInfo {
  name: string;
  dtype: SafetensorsDtype;
  /** the logical shape: for a quantised tensor [rows, cols], not the stored [rows, row bytes] */
  shape: number[];
  /** set when the tensor is block-quantised: stored as U8 [rows, row bytes], named in the metadata as ocr.quant.<name> */
  quant?: QuantFormat;
  /** absolute byte offset of the data in `file` */
  offset: number;
  byteLength: number;
  file: string;
}

export interface SafetensorsHeader {
  file: string;
  fileSize: number;
  /** byte offset where tensor data starts (8 + header length) */
  dataStart: number;
  metadata: Record<string, string>;
  tensors: Map<string, TensorInfo>;
}

export function dtypeBytes(dtype: SafetensorsDtype): number {
  return DTYPE_BYTES[dtype];
}

/** Parses and validates one .safetensors header: dtypes, shapes, offsets inside the file, no overlaps. */
export async function readSafetensorsHeader(file: string): Promise<SafetensorsHeader> {
  let fileSize: number;
  try {
    fileSize = (await stat(file)).size;
  } catch (err) {
    throw new ModelFileError(file, "cannot read weights file", { cause: err });
  }
  if (fileSize < 8) throw new ModelFileError(file, `too short for a safetensors header (${fileSize} bytes)`);
  const fh = await open(file, "r");
  try {
    const lenBuf = Buffer.alloc(8);
    await fh.read(lenBuf, 0, 8, 0);
    const headerLen = Number(lenBuf.readBigUInt64LE(0));
    if (headerLen < 2 || headerLen > MAX_HEADER_BYTES || 8 + headerLen > fileSize)
      throw new ModelFileError(file, `bad safetensors header length ${headerLen} (file is ${fileSize} bytes)`);
    const headerBuf = Buffer.alloc(headerLen);
    await fh.read(headerBuf, 0, headerLen, 8);
    let parsed: unknown;
    try {
      parsed = JSON.parse(headerBuf.toString("utf8"));
    } catch (err) {
      throw new ModelFileError(file, "safetensors header is not valid JSON", { cause: err });
    }
    return validateHeader(parsed, file, fileSize, 8 + headerLen);
  } finally {
    await fh.close();
  }
}

function validateHeader(parsed: unknown, file: string, fileSize: number, dataStart: number): SafetensorsHeader {
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new ModelFileError(file, "safetensors header is not a JSON object");
  const tensors = new Map<string, TensorInfo>();
  let metadata: Record<string, string> = {};
  const ranges: [number, number, string][] = [];
  for (const [name, raw] of Object.entries(parsed as Record<string, unknown>)) {
    if (name === "__metadata__") {
      if (typeof raw === "object" && raw !== null) metadata = raw as Record<string, string>;
      continue;
    }
    const info = raw as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    if (typeof info !== "object" || info === null) throw new ModelFileError(file, `tensor ${name}: entry is not an object`);
    const dtype = info.dtype as SafetensorsDtype;
    if (typeof dtype !== "string" || !(dtype in DTYPE_BYTES))
      throw new ModelFileError(file, `tensor ${name}: unsupported dtype ${JSON.stringify(info.dtype)}`);
    const shape = info.shape;
    if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0))
      throw new ModelFileError(file, `tensor ${name}: bad shape ${JSON.stringify(shape)}`);
    const offs = info.data_offsets;
    if (!Array.isArray(offs) || offs.length !== 2 || !offs.every((d) => Number.isSafeInteger(d) && d >= 0))
      throw new ModelFileError(file, `tensor ${name}: bad data_offsets ${JSON.stringify(offs)}`);
    const [begin, end] = offs as [number, number];
    const elements = (shape as number[]).reduce((a, b) => a * b, 1);
    const expected = elements * DTYPE_BYTES[dtype];
    if (end < begin || end - begin !== expected)
      throw new ModelFileError(
        file,
        `tensor ${name}: data_offsets [${begin}, ${end}] hold ${end - begin} bytes, shape ${JSON.stringify(shape)} ${dtype} needs ${expected}`,
      );
    if (dataStart + end > fileSize)
      throw new ModelFileError(file, `tensor ${name}: data runs past the end of the file (truncated download?)`);
    ranges.push([begin, end, name]);
    const quant = metadata[`ocr.quant.${name}`];
    if (quant !== undefined) {
      if (quant !== "q8_0" && quant !== "q4_1")
        throw new ModelFileError(file, `metadata ocr.quant.${name}: ${JSON.stringify(quant)} is not q8_0 or q4_1`);
      const block = QUANT_BLOCK_BYTES[quant];
      if (dtype !== "U8" || shape.length !== 2 || (shape[1] as number) % block !== 0)
        throw new ModelFileError(
          file,
          `tensor ${name}: a ${quant} tensor must be U8 [rows, a multiple of ${block} bytes], not ${dtype} ${JSON.stringify(shape)}`,
        );
      const logical = [shape[0] as number, ((shape[1] as number) / block) * 32];
      tensors.set(name, { name, dtype, shape: logical, quant, offset: dataStart + begin, byteLength: expected, file });
      continue;
    }
    tensors.set(name, { name, dtype, shape: shape as number[], offset: dataStart + begin, byteLength: expected, file });
  }
  ranges.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < ranges.length; i++) {
    const prev = ranges[i - 1]!;
    const cur = ranges[i]!;
    if (cur[0] < prev[1]) throw new ModelFileError(file, `tensors ${prev[2]} and ${cur[2]} overlap`);
  }
  return { file, fileSize, dataStart, metadata, tensors };
}

/**
 * Reads every tensor header of a weights list (safetensors files, or one `*.index.json` naming shards),
 * relative to `dir`. Names must be unique across shards, and an index must agree with its shards.
 */
export async function readWeightsIndex(dir: string, weights: string[]): Promise<Map<string, TensorInfo>> {
  const all = new Map<string, TensorInfo>();
  const add = (h: SafetensorsHeader) => {
    for (const [name, info] of h.tensors) {
      if (all.has(name)) throw new ModelFileError(h.file, `tensor ${name} also appears in ${all.get(name)!.file}`);
      all.set(name, info);
    }
  };
  for (const w of weights) {
    const file = path.join(dir, w);
    if (w.endsWith(".json")) {
      let index: { weight_map?: Record<string, string> };
      try {
        index = JSON.parse(await readFile(file, "utf8"));
      } catch (err) {
        throw new ModelFileError(file, "cannot read the safetensors index", { cause: err });
      }
      const map = index.weight_map;
      if (typeof map !== "object" || map === null) throw new ModelFileError(file, "index has no weight_map");
      const shards = [...new Set(Object.values(map))];
      for (const shard of shards) {
        if (typeof shard !== "string" || shard.includes("/") || shard.includes("\\"))
          throw new ModelFileError(file, `bad shard name ${JSON.stringify(shard)}`);
        const h = await readSafetensorsHeader(path.join(path.dirname(file), shard));
        add(h);
      }
      for (const [name, shard] of Object.entries(map)) {
        const info = all.get(name);
        if (!info || path.basename(info.file) !== shard)
          throw new ModelFileError(file, `index maps ${name} to ${shard}, which does not hold it`);
      }
    } else {
      add(await readSafetensorsHeader(file));
    }
  }
  return all;
}

/** Reads one tensor's values as float32 (F32, F16 or BF16 on disk), e.g. the image_newline row. */
export async function readTensorF32(info: TensorInfo): Promise<Float32Array> {
  const bytes = Buffer.alloc(info.byteLength);
  const fh = await open(info.file, "r");
  try {
    await fh.read(bytes, 0, info.byteLength, info.offset);
  } finally {
    await fh.close();
  }
  const n = info.shape.reduce((a, b) => a * b, 1);
  const out = new Float32Array(n);
  if (info.dtype === "F32") {
    for (let i = 0; i < n; i++) out[i] = bytes.readFloatLE(i * 4);
  } else if (info.dtype === "BF16") {
    const word = new Uint32Array(1);
    const asFloat = new Float32Array(word.buffer);
    for (let i = 0; i < n; i++) {
      word[0] = bytes.readUInt16LE(i * 2) << 16;
      out[i] = asFloat[0]!;
    }
  } else if (info.dtype === "F16") {
    for (let i = 0; i < n; i++) out[i] = halfToFloat(bytes.readUInt16LE(i * 2));
  } else {
    throw new ModelFileError(info.file, `tensor ${info.name} is ${info.dtype}, not a float type`);
  }
  return out;
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}
