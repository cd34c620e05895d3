// HTTP client of an OpenAI-compatible server: one request with a timeout, retries with backoff and jitter, and the
// answer read whole (JSON) or as server-sent events (stream: true), counting tokens for progress.

import type { PageLine } from "../layout/page.js";

/** A request that failed; `retriable` for connection errors, timeouts, 408/429/5xx and unreadable answers. */
export class ServerError extends Error {
  constructor(
    message: string,
    readonly retriable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "ServerError";
  }
}

export interface ClientOptions {
  /** Base URL, e.g. http://127.0.0.1:8000 (a trailing /v1 is accepted). */
  url: string;
  /** Sent as `Authorization: Bearer …`; never part of a message. */
  apiKey?: string;
  timeoutMs: number;
  retries: number;
  /** First retry delay (default 500 ms); doubles per attempt, times a random factor in [0.5, 1]; at most 30 s. */
  backoffMs?: number;
  /** Longest Retry-After honoured (default 120 s); a longer one is waited this long. */
  maxRetryAfterMs?: number;
}

export interface Completion {
  text: string;
  finishReason: string | null;
  /** usage.completion_tokens when the server reports it, else the number of streamed content deltas. */
  completionTokens: number;
  /** Milliseconds from sending the request to the end of the answer. */
  ms: number;
  /** Attempts it took (1 = no retry). */
  attempts: number;
  /** `ocr serve` only: each page's tokens, truncation and the engine's warnings. */
  pages?: { tokens: number; truncated: boolean; warnings?: string[]; lines?: PageLine[] }[];
}

function ocrPages(v: unknown): Completion["pages"] {
  if (!Array.isArray(v)) return undefined;
  const isLine = (l: { box?: Record<string, unknown>; markdown?: unknown }) =>
    l && typeof l.markdown === "string" && !!l.box && ["xMin", "yMin", "xMax", "yMax"].every((k) => typeof l.box![k] === "number");
  const ok = v.every(
    (p: { tokens?: unknown; truncated?: unknown; warnings?: unknown; lines?: unknown }) =>
      p &&
      typeof p.tokens === "number" &&
      typeof p.truncated === "boolean" &&
      (p.warnings === undefined || (Array.isArray(p.warnings) && p.warnings.every((w) => typeof w === "string"))) &&
      (p.lines === undefined || (Array.isArray(p.lines) && p.lines.every(isLine))),
  );
  return ok ? (v as Completion["pages"]) : undefined;
}

export interface CallHooks {
  signal?: AbortSignal;
  /** Tokens so far while an answer streams. */
  onTokens?: (tokens: number, ms: number) => void;
  /** Before waiting to retry: the failure and the wait. */
  onRetry?: (error: ServerError, attempt: number, waitMs: number) => void;
}

/** `scheme://host:port` of the server with any credentials dropped, for messages. */
export function serverLabel(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return "the server";
  }
}

/** The URL of an API path below the server's base (`/v1/...`). */
export function endpoint(base: string, apiPath: string): string {
  const trimmed = base.replace(/\/+$/, "").replace(/\/v1$/, "");
  return `${trimmed}${apiPath}`;
}

/** Retry-After as milliseconds: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const date = Date.parse(v);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** The server's own error text from an error body: OpenAI's {error: {message}}, vLLM's {message}, FastAPI's {detail}. */
export function errorText(body: string): string {
  const short = (s: string) => (s.length > 500 ? `${s.slice(0, 500)}…` : s);
  try {
    const v = JSON.parse(body) as Record<string, unknown>;
    const e = v.error as Record<string, unknown> | string | undefined;
    if (typeof e === "string") return short(e);
    if (e && typeof e.message === "string") return short(e.message);
    if (typeof v.message === "string") return short(v.message);
    if (typeof v.detail === "string") return short(v.detail);
    if (v.detail !== undefined) return short(JSON.stringify(v.detail));
  } catch {
    /* not JSON: the text itself */
  }
  return short(body.trim().replace(/\s+/g, " ")) || "(no error text)";
}

const RETRIABLE_STATUS = (s: number) => s === 408 || s === 429 || s >= 500;

function headers(apiKey: string | undefined, json: boolean): Record<string, string> {
  const h: Record<string, string> = { accept: "application/json, text/event-stream" };
  if (json) h["content-type"] = "application/json";
  if (apiKey) h.authorization = `Bearer ${apiKey}`;
  return h;
}

function connectionMessage(error: unknown): string {
  const e = error as { cause?: { code?: string; message?: string }; message?: string };
  const code = e.cause?.code;
  return code ? `connection failed (${code})` : `connection failed (${e.cause?.message ?? e.message ?? String(error)})`;
}

async function readLimited(response: Response, limit = 64 * 1024): Promise<string> {
  try {
    const text = await response.text();
    return text.slice(0, limit);
  } catch {
    return "";
  }
}

/** Sends one request; throws ServerError. A run abort (hooks.signal) propagates as an AbortError. */
async function fetchOnce(
  url: string,
  init: RequestInit,
  o: ClientOptions,
  hooks: CallHooks,
): Promise<{ response: Response; timeout: AbortSignal }> {
  // one deadline for the whole exchange: the signal also ends the reading of the body
  const timeout = AbortSignal.timeout(o.timeoutMs);
  const signal = hooks.signal ? AbortSignal.any([hooks.signal, timeout]) : timeout;
  try {
    const response = await fetch(url, { ...init, signal });
    if (!response.ok) {
      const text = await readLimited(response);
      throw new ServerError(
        `${serverLabel(o.url)} answered ${response.status}: ${errorText(text)}`,
        RETRIABLE_STATUS(response.status),
        response.status,
        parseRetryAfter(response.headers.get("retry-after")),
      );
    }
    return { response, timeout };
  } catch (error) {
    throw classify(error, o, hooks, timeout);
  }
}

function classify(error: unknown, o: ClientOptions, hooks: CallHooks, timeout: AbortSignal): unknown {
  if (error instanceof ServerError) return error;
  if (hooks.signal?.aborted) return error;
  if (timeout.aborted)
    return new ServerError(
      `${serverLabel(o.url)} did not answer within ${+(o.timeoutMs / 1000).toFixed(o.timeoutMs < 10_000 ? 1 : 0)} s`,
      true,
    );
  return new ServerError(`${serverLabel(o.url)}: ${connectionMessage(error)}`, true);
}

interface ChatChoice {
  message?: { content?: unknown };
  delta?: { content?: unknown };
  finish_reason?: unknown;
}

function malformed(o: ClientOptions, what: string): ServerError {
  return new ServerError(`${serverLabel(o.url)} sent a malformed answer (${what})`, true);
}

/** Reads a whole JSON answer. */
async function readJson(response: Response, o: ClientOptions): Promise<Omit<Completion, "ms" | "attempts">> {
  const text = await response.text();
  let v: { choices?: ChatChoice[]; usage?: { completion_tokens?: unknown }; error?: unknown; ocr_pages?: unknown };
  try {
    v = JSON.parse(text) as typeof v;
  } catch {
    throw malformed(o, `not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  if (v.error !== undefined) throw new ServerError(`${serverLabel(o.url)}: ${errorText(text)}`, true);
  const choice = v.choices?.[0];
  const content = choice?.message?.content;
  if (!choice || (typeof content !== "string" && content !== null)) throw malformed(o, "no choices[0].message.content");
  const tokens = typeof v.usage?.completion_tokens === "number" ? v.usage.completion_tokens : 0;
  return {
    text: content ?? "",
    finishReason: typeof choice.finish_reason === "string" ? choice.finish_reason : null,
    completionTokens: tokens,
    pages: ocrPages(v.ocr_pages),
  };
}

/** Reads server-sent events (`data: {chunk}` lines, ended by `data: [DONE]`). */
async function readStream(
  response: Response,
  o: ClientOptions,
  hooks: CallHooks,
  started: number,
): Promise<Omit<Completion, "ms" | "attempts">> {
  const decoder = new TextDecoder();
  let buffer = "";
  let text = "";
  let deltas = 0;
  let usage: number | undefined;
  let progress: number | undefined;
  let finishReason: string | null = null;
  let pages: Completion["pages"];
  let done = false;
  const line = (raw: string) => {
    const l = raw.replace(/\r$/, "");
    if (!l.startsWith("data:")) return;
    const data = l.slice(5).trim();
    if (data === "[DONE]") {
      done = true;
      return;
    }
    let chunk: {
      choices?: ChatChoice[];
      usage?: { completion_tokens?: unknown } | null;
      error?: unknown;
      ocr_progress?: { tokens?: unknown };
      ocr_pages?: unknown;
    };
    try {
      chunk = JSON.parse(data) as typeof chunk;
    } catch {
      throw malformed(o, `event not JSON: ${JSON.stringify(data.slice(0, 80))}`);
    }
    if (chunk.error !== undefined) throw new ServerError(`${serverLabel(o.url)}: ${errorText(data)}`, true);
    if (typeof chunk.usage?.completion_tokens === "number") usage = chunk.usage.completion_tokens;
    if (typeof chunk.ocr_progress?.tokens === "number") progress = chunk.ocr_progress.tokens;
    pages = ocrPages(chunk.ocr_pages) ?? pages;
    const choice = chunk.choices?.[0];
    const content = choice?.delta?.content;
    if (typeof content === "string" && content) {
      text += content;
      deltas++;
    }
    if (typeof choice?.finish_reason === "string") finishReason = choice.finish_reason;
    hooks.onTokens?.(progress ?? deltas, performance.now() - started);
  };
  const reader = response.body!.getReader();
  try {
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) break;
      buffer += decoder.decode(value, { stream: true });
      let at: number;
      while ((at = buffer.indexOf("\n")) >= 0) {
        line(buffer.slice(0, at));
        buffer = buffer.slice(at + 1);
        if (done) break;
      }
      if (done) break;
    }
    if (!done && buffer) line(buffer);
  } finally {
    reader.cancel().catch(() => {});
  }
  if (!done && finishReason === null) throw new ServerError(`${serverLabel(o.url)}: the answer stopped before its end`, true);
  return { text, finishReason, completionTokens: usage ?? progress ?? deltas, pages };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Wait before retry `attempt` (0-based): Retry-After when the server gave one, else exponential backoff with jitter. */
export function retryDelay(
  error: ServerError,
  attempt: number,
  o: Pick<ClientOptions, "backoffMs" | "maxRetryAfterMs">,
  random = Math.random,
): number {
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, o.maxRetryAfterMs ?? 120_000);
  const base = Math.min(30_000, (o.backoffMs ?? 500) * 2 ** attempt);
  return Math.round(base * (0.5 + 0.5 * random()));
}

async function withRetries<T>(o: ClientOptions, hooks: CallHooks, attemptOnce: () => Promise<T>): Promise<{ value: T; attempts: number }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return { value: await attemptOnce(), attempts: attempt + 1 };
    } catch (error) {
      if (!(error instanceof ServerError)) throw error;
      if (!error.retriable || attempt >= o.retries) {
        const tries = attempt + 1;
        throw new ServerError(tries > 1 ? `${error.message} (after ${tries} attempts)` : error.message, error.retriable, error.status);
      }
      const wait = retryDelay(error, attempt, o);
      hooks.onRetry?.(error, attempt + 1, wait);
      await sleep(wait, hooks.signal);
    }
  }
}

/** POST /v1/chat/completions with retries; resolves to the answer or throws ServerError after the last attempt. */
export async function chatCompletion(body: Record<string, unknown>, o: ClientOptions, hooks: CallHooks = {}): Promise<Completion> {
  const url = endpoint(o.url, "/v1/chat/completions");
  const payload = JSON.stringify(body);
  let started = 0;
  const { value, attempts } = await withRetries(o, hooks, async () => {
    started = performance.now();
    const { response, timeout } = await fetchOnce(url, { method: "POST", headers: headers(o.apiKey, true), body: payload }, o, hooks);
    try {
      const type = response.headers.get("content-type") ?? "";
      return type.includes("text/event-stream") ? await readStream(response, o, hooks, started) : await readJson(response, o);
    } catch (error) {
      throw classify(error, o, hooks, timeout);
    }
  });
  return { ...value, ms: performance.now() - started, attempts };
}

export interface ServedModel {
  id: string;
  owned_by?: string;
  /** `ocr serve` only: the bundle's prompt, per-page token cap and content identity. */
  ocr?: { prompt: string; max_tokens: number; model_id: string; pages_per_request?: number };
}

/** GET /v1/models with retries: the models the server serves. */
export async function listModels(o: ClientOptions, hooks: CallHooks = {}): Promise<ServedModel[]> {
  const url = endpoint(o.url, "/v1/models");
  const { value } = await withRetries(o, hooks, async () => {
    const { response, timeout } = await fetchOnce(url, { method: "GET", headers: headers(o.apiKey, false) }, o, hooks);
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw classify(error, o, hooks, timeout);
    }
    let v: { data?: unknown };
    try {
      v = JSON.parse(text) as typeof v;
    } catch {
      throw malformed(o, "/v1/models is not JSON");
    }
    if (!Array.isArray(v.data)) throw malformed(o, "/v1/models has no data list");
    return (v.data as ServedModel[]).filter((m) => m && typeof m.id === "string");
  });
  return value;
}
