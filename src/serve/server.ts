// `ocr serve`: the OpenAI chat-completions API over our own engine (image + prompt in, the model's text out), so
// `ocr parse --server` and other clients can share one loaded model, and CPU machines can pool behind a load balancer.
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { getEngine, type DecodedPage, type DocumentPages, type PageEngine } from "../engines/engine.js";
import "../engines/index.js";
import { requireBundleDir } from "../engines/model/bundle.js";
import type { RunSettings } from "../app/settings.js";
import { isInputError, openDocument, renderedSize, type OpenedDocument } from "../input/index.js";
import { loadBundle } from "../model/bundle.js";
import { PAGE_SEPARATOR } from "../output/grounding.js";

export interface ServeOptions {
  /** Model settings as `ocr parse` takes them (engine "model"). */
  settings: RunSettings;
  host: string;
  port: number;
  /** Requests decoding at once; one more is answered 429 with Retry-After. */
  maxRequests: number;
  /** Largest request body; a bigger one is answered 413. */
  maxBodyBytes: number;
  /**
   * Pages a client may send in one request (advertised in /v1/models). A streaming-layout model reads a document's
   * pages in one pass, the text window carrying across, so pages sent together read as a local run reads them.
   */
  pagesPerRequest?: number;
  /** When set, every request needs `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** One line per request (method, path, status, ms) and lifecycle notes; never the key or the body. */
  log?: (line: string) => void;
}

export interface RunningServer {
  url: string;
  port: number;
  /** Stops accepting, lets requests in flight finish (at most `graceMs`), then frees the model. */
  close(graceMs?: number): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = "invalid_request_error",
  ) {
    super(message);
  }
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(res: http.ServerResponse, status: number, message: string, type: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: { message, type, code: status } }, headers);
}

/** Reads the body up to `limit` bytes; over it, a 413 (the rest is not read). */
function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit)
    return Promise.reject(new HttpError(413, `request body of ${declared} bytes is over the limit of ${limit}`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.removeAllListeners("data");
        req.pause();
        reject(new HttpError(413, `request body is over the limit of ${limit} bytes`));
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

interface ChatPart {
  type?: unknown;
  text?: unknown;
  image_url?: { url?: unknown } | string;
}

/** The images (data URLs only: the server fetches nothing) and the text of the last user message. */
export function readChatRequest(body: unknown): { images: Buffer[]; text: string; stream: boolean; model: string | undefined } {
  if (!body || typeof body !== "object") throw new HttpError(400, "the body must be a JSON object");
  const b = body as { messages?: unknown; stream?: unknown; model?: unknown };
  if (!Array.isArray(b.messages) || b.messages.length === 0) throw new HttpError(400, "messages must be a non-empty list");
  const users = (b.messages as { role?: unknown; content?: unknown }[]).filter((m) => m && m.role === "user");
  const message = users.at(-1);
  if (!message) throw new HttpError(400, "messages has no user message");
  const parts: ChatPart[] =
    typeof message.content === "string"
      ? [{ type: "text", text: message.content }]
      : Array.isArray(message.content)
        ? (message.content as ChatPart[])
        : [];
  const images: Buffer[] = [];
  const texts: string[] = [];
  for (const part of parts) {
    if (part?.type === "text" && typeof part.text === "string") texts.push(part.text);
    else if (part?.type === "image_url") {
      const url = typeof part.image_url === "string" ? part.image_url : part.image_url?.url;
      if (typeof url !== "string") throw new HttpError(400, "an image_url part has no url");
      const m = /^data:[^;,]*(;[^,]*)?,/.exec(url);
      if (!m) throw new HttpError(400, "image_url must be a data: URL (data:image/png;base64,…); this server fetches nothing");
      const payload = url.slice(m[0].length);
      images.push(m[1]?.includes(";base64") ? Buffer.from(payload, "base64") : Buffer.from(decodeURIComponent(payload), "latin1"));
    } else throw new HttpError(400, `unsupported content part type ${JSON.stringify(part?.type)}`);
  }
  if (images.length === 0) throw new HttpError(400, "the user message has no image_url part: this server reads page images");
  return { images, text: texts.join("\n").trim(), stream: b.stream === true, model: typeof b.model === "string" ? b.model : undefined };
}

/** The pages of a request's images (each image's frames, in order) as an engine reads a document. */
async function requestPages(images: Buffer[], maxPixels: number): Promise<{ pages: DocumentPages; close: () => Promise<void> }> {
  const docs: OpenedDocument[] = [];
  const close = async () => {
    for (const d of docs) await d.close().catch(() => {});
  };
  const index: { doc: OpenedDocument; page: number }[] = [];
  try {
    for (const [i, bytes] of images.entries()) {
      const doc = await openDocument(bytes, { name: `image ${i + 1}` });
      docs.push(doc);
      for (let p = 1; p <= doc.pageCount; p++) index.push({ doc, page: p });
    }
  } catch (error) {
    await close();
    if (isInputError(error)) throw new HttpError(400, error.message);
    throw error;
  }
  const options = { maxPixels };
  const pages: DocumentPages = {
    source: "request",
    kind: docs[0]!.kind,
    pageCount: index.length,
    pageNumbers: index.map((_, i) => i + 1),
    render: (n) => index[n - 1]!.doc.renderPage(index[n - 1]!.page, options),
    pixelSize: async (n) => renderedSize(await index[n - 1]!.doc.pageSize(index[n - 1]!.page), options),
    textContent: async () => undefined,
  };
  return { pages, close };
}

/** Compares the Authorization header with the expected one in constant time (digests of equal length). */
function sameKey(given: string | undefined, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return given !== undefined && timingSafeEqual(digest(given), digest(expected));
}

export async function startServer(o: ServeOptions): Promise<RunningServer> {
  const settings = { ...o.settings, engine: "model" };
  const dir = requireBundleDir(settings.model.dir);
  const engine: PageEngine = await getEngine("model")!.create({ ...settings, model: { ...settings.model, dir } });
  const bundle = await loadBundle(dir);
  const prompt = bundle.json.prompts.page;
  const promptText = prompt.replace("<image>", "").replace(/^\n/, "").trim();
  const maxTokens = settings.model.maxTokens ?? bundle.json.decoding.max_tokens_per_page;
  const name = engine.model?.name ?? bundle.json.name;
  const created = Math.floor(Date.now() / 1000);
  const log = o.log ?? (() => {});
  let inFlight = 0;
  let closing = false;
  const controllers = new Set<AbortController>();
  let idle: (() => void) | undefined;

  const chat = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const raw = await readBody(req, o.maxBodyBytes);
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString("utf8"));
    } catch {
      throw new HttpError(400, "the body is not valid JSON");
    }
    const request = readChatRequest(parsed);
    if (request.model !== undefined && request.model !== name)
      throw new HttpError(
        404,
        `model ${JSON.stringify(request.model)} is not served here (this server serves ${JSON.stringify(name)})`,
        "not_found_error",
      );
    if (request.text && request.text !== promptText) {
      throw new HttpError(
        400,
        `model ${name} reads the prompt ${JSON.stringify(prompt)}: send the text part ${JSON.stringify(promptText)} (or none)`,
      );
    }
    const { pages, close } = await requestPages(request.images, settings.maxPixels);
    const controller = new AbortController();
    controllers.add(controller);
    // a client that goes away stops its decoding
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    const id = `chatcmpl-${randomUUID()}`;
    const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created: Math.floor(Date.now() / 1000),
        model: name,
        choices: [{ index: 0, delta, finish_reason: finish }],
        ...extra,
      })}\n\n`;
    if (request.stream) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
      res.write(chunk({ role: "assistant", content: "" }, null));
    }
    const decoded: DecodedPage[] = [];
    let tokensBefore = 0;
    let lastProgress = 0;
    try {
      for await (const page of engine.decodeDocument(pages, {
        signal: controller.signal,
        warn: () => {},
        progress: (_page, tokens) => {
          const now = performance.now();
          if (!request.stream || now - lastProgress < 250) return;
          lastProgress = now;
          res.write(chunk({}, null, { ocr_progress: { tokens: tokensBefore + tokens } }));
        },
      })) {
        if (page.error !== undefined) throw new HttpError(400, `page ${page.pageNumber}: ${page.error}`);
        decoded.push(page);
        tokensBefore += page.tokenCount;
        if (request.stream)
          res.write(chunk({ content: (decoded.length > 1 ? `\n${PAGE_SEPARATOR}\n` : "") + (page.rawText ?? page.markdown) }, null));
      }
    } finally {
      await close();
      controllers.delete(controller);
    }
    if (controller.signal.aborted) return;
    const content = decoded.map((p) => p.rawText ?? p.markdown).join(`\n${PAGE_SEPARATOR}\n`);
    const finish = decoded.some((p) => p.truncated) ? "length" : "stop";
    const usage = { prompt_tokens: 0, completion_tokens: tokensBefore, total_tokens: tokensBefore };
    // our extension: per page, its tokens, whether it hit the cap, and the engine's notes (a line read by the recogniser, …)
    const ocrPages = decoded.map((p) => ({
      tokens: p.tokenCount,
      truncated: p.truncated,
      warnings: p.warnings,
      ...(p.pageLines ? { lines: p.pageLines } : {}),
    }));
    if (request.stream) {
      res.write(chunk({}, finish));
      res.write(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: name, choices: [], usage, ocr_pages: ocrPages })}\n\n`,
      );
      res.end("data: [DONE]\n\n");
      return;
    }
    sendJson(res, 200, {
      id,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: name,
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: finish }],
      usage,
      ocr_pages: ocrPages,
    });
  };

  const server = http.createServer((req, res) => {
    const started = performance.now();
    const path = (req.url ?? "/").split("?")[0]!;
    // (on close, not finish: a 413 that closes the connection before its answer is flushed is logged too)
    res.on("close", () => log(`${req.method} ${path} ${res.statusCode} ${Math.round(performance.now() - started)} ms`));
    const fail = (error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof HttpError ? error.message : `internal error: ${(error as Error).message ?? String(error)}`;
      if (res.headersSent) {
        // a stream already started: the error goes in the stream, as vLLM does
        res.end(`data: ${JSON.stringify({ error: { message, type: "server_error", code: status } })}\n\ndata: [DONE]\n\n`);
      } else
        sendError(
          res,
          status,
          message,
          error instanceof HttpError ? error.type : "server_error",
          status === 413 ? { connection: "close" } : {},
        );
    };
    if (o.apiKey && !sameKey(req.headers.authorization, `Bearer ${o.apiKey}`)) {
      sendError(res, 401, "missing or wrong API key (Authorization: Bearer …)", "authentication_error");
      return;
    }
    if (path === "/health" && req.method === "GET") {
      res.writeHead(closing ? 503 : 200, { "content-type": "text/plain" }).end(closing ? "closing\n" : "ok\n");
      return;
    }
    if ((path === "/v1/models" || path === "/models") && req.method === "GET") {
      sendJson(res, 200, {
        object: "list",
        data: [
          {
            id: name,
            object: "model",
            created,
            owned_by: "ocr",
            ocr: {
              prompt,
              max_tokens: maxTokens,
              model_id: engine.model?.id ?? "",
              pages_per_request: bundle.json.layout === "streaming" ? (o.pagesPerRequest ?? 8) : 1,
            },
          },
        ],
      });
      return;
    }
    if (path !== "/v1/chat/completions" && path !== "/chat/completions") {
      sendError(
        res,
        404,
        `no route ${req.method} ${path} (this server answers POST /v1/chat/completions, GET /v1/models, GET /health)`,
        "not_found_error",
      );
      return;
    }
    if (req.method !== "POST") {
      sendError(res, 405, "use POST", "invalid_request_error", { allow: "POST" });
      return;
    }
    if (closing) {
      sendError(res, 503, "the server is shutting down", "server_error", { "retry-after": "1", connection: "close" });
      return;
    }
    if (inFlight >= o.maxRequests) {
      sendError(res, 429, `${inFlight} requests are being decoded (the limit is ${o.maxRequests}); try again shortly`, "rate_limit_error", {
        "retry-after": "1",
      });
      req.resume();
      return;
    }
    inFlight++;
    chat(req, res)
      .catch(fail)
      .finally(() => {
        inFlight--;
        if (inFlight === 0) idle?.();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = o.host.includes(":") ? `[${o.host}]` : o.host;
  return {
    url: `http://${host}:${port}`,
    port,
    async close(graceMs = 30_000) {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        log(`shutting down: waiting for ${inFlight} request(s) in flight (at most ${Math.round(graceMs / 1000)} s)`);
        const timer = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
        await Promise.race([new Promise<void>((resolve) => (idle = resolve)), timer]);
        for (const c of controllers) c.abort();
      }
      server.closeAllConnections();
      await stopped;
      await engine.close();
    },
  };
}
