// `ocr serve` on 127.0.0.1 with the default model, and `ocr parse --server` against it: the same Markdown and JSON as a
// local run of the same bundle; body and in-flight limits (413, 429); a bearer key; graceful shutdown on SIGTERM.
import { execa, type ResultPromise } from "execa";
import { readFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bin, ocr } from "../helpers/cli.js";
import { fixture, tempDir } from "../helpers/paths.js";

const tmp = tempDir("ocr-serve-");
afterAll(tmp.cleanup);

interface Served {
  url: string;
  child: ResultPromise;
  log: () => string;
}

/** Starts `ocr serve` on a free loopback port and waits (at most 120 s) for its listening line. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = execa(process.execPath, [bin, "serve", "--port", "0", ...args], {
    reject: false,
    env: { CI: "1", ...env },
    buffer: false,
    forceKillAfterDelay: false,
  });
  let log = "";
  child.stderr!.on("data", (c: Buffer) => (log += c.toString()));
  const deadline = Date.now() + 120_000;
  while (!/listening on (http:\/\/127\.0\.0\.1:\d+)/.test(log)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`ocr serve did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(log)![1]!, child, log: () => log };
}

async function stop(s: Served | undefined): Promise<void> {
  if (!s || s.child.exitCode !== null) return;
  s.child.kill("SIGTERM");
  const timer = setTimeout(() => s.child.kill("SIGKILL"), 30_000);
  await s.child;
  clearTimeout(timer);
}

const dataUrl = (png: Buffer) => `data:image/png;base64,${png.toString("base64")}`;
const chatBody = (png: Buffer, extra: Record<string, unknown> = {}, text?: string) =>
  JSON.stringify({
    model: "default",
    messages: [
      {
        role: "user",
        content: [{ type: "image_url", image_url: { url: dataUrl(png) } }, ...(text !== undefined ? [{ type: "text", text }] : [])],
      },
    ],
    ...extra,
  });
const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    signal: AbortSignal.timeout(120_000),
  });

/** A record without what differs by nature between runs and engines: timings, the engine's name, the bundle's folder. */
function comparable(file: string) {
  const d = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown> & {
    pages: Record<string, unknown>[];
    model: Record<string, unknown>;
    settings: Record<string, unknown>;
  };
  return {
    ...d,
    timings: undefined,
    resumeKey: undefined,
    settings: { ...d.settings, engine: undefined },
    model: { ...d.model, dir: undefined },
    pages: d.pages.map((p) => ({ ...p, timings: undefined })),
  };
}

describe("ocr serve + ocr parse --server", () => {
  let server: Served | undefined;
  const key = "test-key-9f2";
  beforeAll(async () => {
    server = await serve([], { OCR_SERVER_API_KEY: key });
  });
  afterAll(() => stop(server));

  it("gives the same Markdown and JSON as a local run of the same bundle", async () => {
    const local = path.join(tmp.dir, "local");
    const remote = path.join(tmp.dir, "remote");
    const a = await ocr(["parse", fixture("scanned_page.pdf"), "-o", local], { cwd: tmp.dir });
    expect(a.exitCode, a.stderr).toBe(0);
    const b = await ocr(["parse", fixture("scanned_page.pdf"), "-o", remote, "--server", server!.url], {
      cwd: tmp.dir,
      env: { CI: "1", OCR_SERVER_API_KEY: key },
    });
    expect(b.exitCode, b.stderr).toBe(0);
    const md = readFileSync(path.join(local, "scanned_page.md"), "utf8");
    expect(md.length).toBeGreaterThan(50);
    expect(readFileSync(path.join(remote, "scanned_page.md"), "utf8")).toBe(md);
    const [l, r] = [comparable(path.join(local, "scanned_page.json")), comparable(path.join(remote, "scanned_page.json"))];
    expect(r).toEqual(l);
    expect(JSON.parse(readFileSync(path.join(remote, "scanned_page.json"), "utf8")).settings.engine).toBe("server");
    expect(server!.log()).not.toContain(key);
  }, 420_000);

  it("answers without a key 401, a foreign prompt or a fetched URL 400, unknown paths 404; streams on request", async () => {
    const blank = await sharp({ create: { width: 200, height: 100, channels: 3, background: "#ffffff" } })
      .png()
      .toBuffer();
    const auth = { authorization: `Bearer ${key}` };
    const noKey = await post(server!.url, chatBody(blank));
    expect(noKey.status).toBe(401);
    const prompt = await post(server!.url, chatBody(blank, {}, "Free OCR."), auth);
    expect(prompt.status).toBe(400);
    expect(((await prompt.json()) as { error: { message: string } }).error.message).toBe(
      'model default reads the prompt "<image>document parsing.": send the text part "document parsing." (or none)',
    );
    const fetched = await post(
      server!.url,
      JSON.stringify({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "http://example.org/a.png" } }] }] }),
      auth,
    );
    expect(fetched.status).toBe(400);
    const garbage = await post(server!.url, "{not json", auth);
    expect(garbage.status).toBe(400);
    expect((await fetch(`${server!.url}/v2/anything`, { headers: auth })).status).toBe(404);
    const plain = await post(server!.url, chatBody(blank, {}, "document parsing."), auth);
    expect(plain.status).toBe(200);
    const answer = (await plain.json()) as {
      choices: { message: { content: string }; finish_reason: string }[];
      usage: { completion_tokens: number };
    };
    expect(answer.choices[0]!.finish_reason).toBe("stop");
    const streamed = await post(server!.url, chatBody(blank, { stream: true }), auth);
    expect(streamed.headers.get("content-type")).toContain("text/event-stream");
    const events = (await streamed.text()).split("\n\n").filter(Boolean);
    expect(events.at(-1)).toBe("data: [DONE]");
    const chunks = events.slice(0, -1).map(
      (e) =>
        JSON.parse(e.slice(6)) as {
          choices: { delta: { content?: string }; finish_reason: string | null }[];
          usage?: { completion_tokens: number };
        },
    );
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe(answer.choices[0]!.message.content);
    expect(chunks.find((c) => c.choices[0]?.finish_reason)!.choices[0]!.finish_reason).toBe("stop");
    expect(chunks.at(-1)!.usage!.completion_tokens).toBe(answer.usage.completion_tokens);
  });
});

describe("ocr serve limits and shutdown", () => {
  it("answers 413 over the body limit and 429 over the requests in flight; SIGTERM lets the request in flight finish", async () => {
    const server = await serve(["--max-requests", "1", "--max-body-mb", "1"]);
    try {
      const big = await post(server.url, JSON.stringify({ messages: [{ role: "user", content: "x".repeat(2 * 2 ** 20) }] })).catch(
        (e: Error) => e,
      );
      if (!(big instanceof Error)) expect(big.status).toBe(413);
      else expect(server.log()).toMatch(/POST \/v1\/chat\/completions 413/);
      const table = readFileSync(fixture("table.png"));
      const first = post(server.url, chatBody(table, { stream: true }));
      await new Promise((r) => setTimeout(r, 500));
      const second = await post(server.url, chatBody(table));
      expect(second.status).toBe(429);
      expect(second.headers.get("retry-after")).toBe("1");
      // the shutdown waits for the page being decoded, then the process ends cleanly
      server.child.kill("SIGTERM");
      const answer = await first;
      expect(answer.status).toBe(200);
      const text = await answer.text();
      expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
      expect(text).toContain("<table>");
      const done = await server.child;
      expect(done.exitCode).toBe(143);
      expect(server.log()).toContain("ocr serve: stopped");
      const after = await fetch(`${server.url}/health`).catch((e: Error) => e);
      expect(after).toBeInstanceOf(Error);
    } finally {
      await stop(server);
    }
  }, 300_000);
});
