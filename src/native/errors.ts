// Typed decoder errors: bad options (caught in TypeScript) and native failures (a stable code from C++).

/** Codes: BAD_OPTION, BAD_INPUT, BAD_CONFIG, BAD_WEIGHTS, BAD_STATE, BUSY, OUT_OF_MEMORY, NATIVE_ERROR, ADDON_MISSING. */
export class DecoderError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DecoderError";
    this.code = code;
  }
}

export function describeValue(v: unknown): string {
  if (v === undefined) return "undefined";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean" || v === null) return String(v);
  if (Array.isArray(v)) return `an array of ${v.length}`;
  return typeof v;
}

export function badOption(expected: string, option: string, received: unknown): DecoderError {
  return new DecoderError("BAD_OPTION", `Expected ${expected} for option ${option} but received ${describeValue(received)}`);
}

/** Re-raises a native error as DecoderError, keeping the caller's stack. */
export function fromNative(err: unknown): DecoderError {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === "string" ? e.code : "NATIVE_ERROR";
  const message = typeof e?.message === "string" ? e.message : String(err);
  const out = new DecoderError(code, message, { cause: err });
  Error.captureStackTrace?.(out, fromNative);
  return out;
}
