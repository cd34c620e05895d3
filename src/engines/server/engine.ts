// The "server" engine (ocr parse --server URL): pages go to an OpenAI-compatible chat-completions server (vLLM or SGLang
// serving DeepSeek-OCR or Unlimited-OCR, or `ocr serve`); the answers are parsed into blocks exactly as local output is.
import { createHash } from "node:crypto";
import { isInputError, type RasterPage } from "../../input/index.js";
import { loadSharp } from "../../input/sharp.js";
import { splitPages } from "../../output/grounding.js";
import { chatCompletion, listModels, serverLabel, ServerError, type ClientOptions, type ServedModel } from "../../server/client.js";
import { chatRequest, profileForModel, type ModelProfile, type ServerKind } from "../../server/requests.js";
import {
  registerEngine,
  type DecodeContext,
  type DecodedPage,
  type DocumentPages,
  type ModelIdentity,
  type PageEngine,
} from "../engine.js";
import { EnvironmentError, UsageError } from "../errors.js";
import type { EngineSettings, ServerSettings } from "../settings.js";
import { decodedPageFromText } from "../page.js";

/** Requests in flight across every document of the run, first come first served. */
export class Semaphore {
  private waiting: (() => void)[] = [];
  private active = 0;
  constructor(readonly limit: number) {}
  async acquire(signal: AbortSignal): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal.removeEventListener("abort", stop);
        resolve();
      };
      const stop = () => {
        this.waiting = this.waiting.filter((w) => w !== go);
        reject(signal.reason);
      };
      if (signal.aborted) return stop();
      signal.addEventListener("abort", stop, { once: true });
      this.waiting.push(go);
    });
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

interface Rendered {
  pageNumber: number;
  raster: RasterPage;
  png: Buffer;
  timings: Record<string, number>;
}

export class ServerEngine implements PageEngine {
  readonly engine = "server";
  private readonly slots: Semaphore;
  constructor(
    readonly model: ModelIdentity,
    private readonly client: ClientOptions,
    private readonly served: string,
    private readonly serverKind: ServerKind,
    private readonly profile: ModelProfile,
    private readonly maxTokens: number,
    concurrency: number,
  ) {
    this.slots = new Semaphore(concurrency);
  }

  /**
   * Pages (or, for Unlimited-OCR, groups of up to 8 pages) are requested concurrently, at most --concurrency across
   * the run, and yielded in page order; a few groups ahead of the one being yielded are started, no more.
   */
  async *decodeDocument(pages: DocumentPages, context: DecodeContext): AsyncIterable<DecodedPage> {
    const per = this.profile.pagesPerRequest;
    const groups: number[][] = [];
    for (let i = 0; i < pages.pageNumbers.length; i += per) groups.push(pages.pageNumbers.slice(i, i + per));
    const ahead = Math.max(1, this.slots.limit);
    const tasks: Promise<DecodedPage[]>[] = [];
    const start = (upTo: number) => {
      while (tasks.length < Math.min(groups.length, upTo)) {
        const task = this.group(pages, groups[tasks.length]!, context);
        task.catch(() => {});
        tasks.push(task);
      }
    };
    for (let i = 0; i < groups.length; i++) {
      if (context.signal.aborted) return;
      start(i + ahead);
      let done: DecodedPage[];
      try {
        done = await tasks[i]!;
      } catch (error) {
        if (context.signal.aborted) return;
        throw error;
      }
      for (const page of done) yield page;
    }
  }

  private async render(pages: DocumentPages, pageNumber: number): Promise<Rendered | DecodedPage> {
    try {
      let t = performance.now();
      const raster = await pages.render(pageNumber);
      const render = performance.now() - t;
      t = performance.now();
      const sharp = await loadSharp();
      const png = await sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: 3 } })
        .png()
        .toBuffer();
      return { pageNumber, raster, png, timings: { render: round(render), encode: round(performance.now() - t) } };
    } catch (error) {
      if (!isInputError(error)) throw error;
      return failedPage(pages, pageNumber, error.message);
    }
  }

  private async group(pages: DocumentPages, numbers: number[], context: DecodeContext): Promise<DecodedPage[]> {
    await this.slots.acquire(context.signal);
    try {
      const out = new Map<number, DecodedPage>();
      const ok: Rendered[] = [];
      for (const n of numbers) {
        const r = await this.render(pages, n);
        if ("png" in r) ok.push(r);
        else out.set(n, r);
      }
      if (ok.length) for (const page of await this.request(pages, ok, context)) out.set(page.pageNumber, page);
      return numbers.map((n) => out.get(n)!);
    } finally {
      this.slots.release();
    }
  }

  private async request(pages: DocumentPages, rendered: Rendered[], context: DecodeContext): Promise<DecodedPage[]> {
    const several = rendered.length > 1;
    const body = chatRequest({
      model: this.served,
      server: this.serverKind,
      profile: this.profile,
      pages: rendered.map((r) => r.png),
      maxTokens: this.maxTokens * rendered.length,
      stream: true,
    });
    const first = rendered[0]!.pageNumber;
    let answer;
    try {
      answer = await chatCompletion(body, this.client, {
        signal: context.signal,
        onTokens: (tokens, ms) => context.progress?.(first, tokens, ms),
        onRetry: (error, attempt, wait) =>
          context.warn(
            `page ${first}${several ? `-${rendered.at(-1)!.pageNumber}` : ""}: ${error.message}; retry ${attempt} of ${this.client.retries} in ${(wait / 1000).toFixed(1)} s`,
            first,
          ),
      });
    } catch (error) {
      if (!(error instanceof ServerError)) throw error;
      return Promise.all(rendered.map((r) => failedPage(pages, r.pageNumber, error.message, r.raster)));
    }
    const ended = answer.finishReason !== "length";
    // `ocr serve` reports each page's tokens and truncation; other servers only the request's
    const perPage = answer.pages?.length === rendered.length ? answer.pages : undefined;
    const texts = several ? splitPages(answer.text) : [answer.text];
    if (texts.length > rendered.length) {
      context.warn(`the model wrote ${texts.length} pages for ${rendered.length}; the extra text is kept on the last page`);
      texts.splice(rendered.length - 1, texts.length, texts.slice(rendered.length - 1).join("\n\n"));
    }
    const totalChars = texts.reduce((s, t) => s + t.length, 0) || 1;
    const out: DecodedPage[] = [];
    for (let k = 0; k < rendered.length; k++) {
      const r = rendered[k]!;
      const present = k < texts.length;
      // a page is complete when a <PAGE> follows it or the answer ended (finish_reason "stop") after it
      const truncated = perPage ? perPage[k]!.truncated : !present || (k === texts.length - 1 && !ended);
      // the server counts tokens per request: a shared request's count is split by the length of each page's text
      const tokenCount = perPage
        ? perPage[k]!.tokens
        : several
          ? present
            ? Math.round((answer.completionTokens * texts[k]!.length) / totalChars)
            : 0
          : answer.completionTokens;
      const request = round(answer.ms / rendered.length);
      const page = await decodedPageFromText(
        present ? texts[k]! : "",
        { ...r.raster, pageNumber: r.pageNumber, pixels: r.raster },
        {
          figureDir: pages.figureDir,
          tokenCount,
          truncated,
          timings: { ...r.timings, request },
          missing: !present,
          maxTokens: this.maxTokens,
          // `ocr serve` with a line-unit model sends each line's box and Markdown: the same blocks as a local run
          lines: perPage?.[k]?.lines,
        },
      );
      page.decodeMs = answer.ms / rendered.length;
      // the engine's own notes are the local run's; only figure crops (made here, from our pixels) add to them
      const notes = perPage?.[k]?.warnings;
      if (notes) page.warnings = [...notes, ...page.warnings.filter((w) => w.startsWith("figure ") && !notes.includes(w))];
      delete page.rawText;
      delete page.pageLines;
      out.push(page);
    }
    return out;
  }

  async close(): Promise<void> {}
}

async function failedPage(pages: DocumentPages, pageNumber: number, message: string, raster?: RasterPage): Promise<DecodedPage> {
  const size = raster ?? (await pages.pixelSize(pageNumber).catch(() => ({ width: 0, height: 0, dpi: undefined })));
  return {
    pageNumber,
    width: size.width,
    height: size.height,
    dpi: size.dpi,
    markdown: "",
    blocks: [],
    tokenCount: 0,
    truncated: false,
    timings: {},
    warnings: [`page ${pageNumber} has no text: ${message}`],
    error: message,
  };
}

/** vLLM and SGLang say who they are in /v1/models' owned_by; anything else is spoken to like vLLM. */
function kindOf(model: ServedModel | undefined): ServerKind {
  const owner = model?.owned_by?.toLowerCase();
  return owner === "sglang" || owner === "ocr" ? owner : "vllm";
}

export async function createServerEngine(settings: EngineSettings): Promise<PageEngine> {
  const s: ServerSettings | undefined = settings.server;
  if (!s) throw new UsageError("the server engine needs --server URL");
  let url: URL;
  try {
    url = new URL(s.url);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    throw new UsageError(`--server ${JSON.stringify(s.url)}: not an http:// or https:// URL`);
  }
  const client: ClientOptions = { url: s.url, apiKey: s.apiKey, timeoutMs: s.timeoutMs, retries: s.retries, backoffMs: s.backoffMs };
  let models: ServedModel[];
  try {
    models = await listModels(client);
  } catch (error) {
    if (error instanceof ServerError)
      throw new EnvironmentError(`--server: cannot list the models of ${serverLabel(s.url)}: ${error.message}`);
    throw error;
  }
  const served = s.model ?? models[0]?.id;
  if (!served) throw new EnvironmentError(`--server: ${serverLabel(s.url)} serves no model (/v1/models is empty)`);
  const entry = models.find((m) => m.id === served);
  if (s.model && !entry) {
    throw new UsageError(`--server-model ${s.model}: ${serverLabel(s.url)} serves ${models.map((m) => m.id).join(", ") || "no model"}`);
  }
  const kind = kindOf(entry);
  let profile: ModelProfile;
  if (kind === "ocr" && entry?.ocr) {
    // `ocr serve` says which prompt its bundle reads; the text part is the prompt without its <image>
    // and how many pages it reads in one request (a streaming-layout model reads them in one pass, as a local run does)
    const pageText = entry.ocr.prompt.replace("<image>", "").replace(/^\n/, "");
    const per = Math.max(1, Math.floor(entry.ocr.pages_per_request ?? 1));
    profile = {
      family: "ocr",
      pageText,
      documentText: per > 1 ? pageText : undefined,
      pagesPerRequest: per,
      imageFirst: true,
      maxTokens: entry.ocr.max_tokens,
    };
  } else profile = profileForModel(served);
  const id = entry?.ocr?.model_id ?? createHash("sha256").update(`server\0${served}`).digest("hex").slice(0, 16);
  return new ServerEngine(
    { name: served, dir: null, id },
    client,
    served,
    kind,
    profile,
    settings.model.maxTokens ?? profile.maxTokens,
    s.concurrency,
  );
}

registerEngine({ name: "server", description: "an OpenAI-compatible server (ocr parse --server URL)", create: createServerEngine });
