// The chat-completions client against a loopback server that misbehaves on purpose: every loop bounded in count and time.
import { afterEach, describe, expect, it } from "vitest";
import {
  chatCompletion,
  errorText,
  listModels,
  parseRetryAfter,
  retryDelay,
  ServerError,
  type ClientOptions,
} from "../../src/server/client.js";
import { completion, errorAnswer, fakeServer, streamed, type FakeServer, type Handler } from "../helpers/fake-server.js";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const body = { model: "m", messages: [{ role: "user", content: "x" }] };
const options = (s: FakeServer, extra: Partial<ClientOptions> = {}): ClientOptions => ({
  url: s.url,
  timeoutMs: 5000,
  retries: 3,
  backoffMs: 50,
  ...extra,
});
/** Answers with the handlers in turn, the last one for every later request. */
const script =
  (...steps: Handler[]): Handler =>
  (req, res, s) =>
    steps[Math.min(s.requests.length - 1, steps.length - 1)]!(req, res, s);

describe("retries", () => {
  it("retries a 500 and a 503, then returns the answer", async () => {
    server = await fakeServer(
      script(
        (_q, r) => errorAnswer(r, 500, "boom"),
        (_q, r) => errorAnswer(r, 503, "busy"),
        (_q, r) => completion(r, "# Page", "stop", 7),
      ),
    );
    const retries: string[] = [];
    const answer = await chatCompletion(body, options(server), { onRetry: (e) => retries.push(e.message) });
    expect(answer).toMatchObject({ text: "# Page", finishReason: "stop", completionTokens: 7, attempts: 3 });
    expect(retries).toEqual([`${server.url} answered 500: boom`, `${server.url} answered 503: busy`]);
  });

  it("honours Retry-After on a 429 (waits its second, not the 25-50 ms backoff)", async () => {
    server = await fakeServer(
      script(
        (_q, r) => errorAnswer(r, 429, "slow down", { "retry-after": "1" }),
        (_q, r) => completion(r, "ok"),
      ),
    );
    const answer = await chatCompletion(body, options(server));
    expect(answer.attempts).toBe(2);
    const gap = server.requests[1]!.at - server.requests[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(950);
    expect(gap).toBeLessThan(3000);
  });

  it("retries malformed JSON, and gives up with a clear message when it stays malformed", async () => {
    const bad: Handler = (_q, r) => void r.writeHead(200, { "content-type": "application/json" }).end('{"choices": [');
    server = await fakeServer(script(bad, (_q, r) => completion(r, "fine")));
    expect((await chatCompletion(body, options(server))).text).toBe("fine");
    await server.close();
    server = await fakeServer(bad);
    const error = await chatCompletion(body, options(server, { retries: 2 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as Error).message).toBe(`${server.url} sent a malformed answer (not JSON: "{\\"choices\\": [") (after 3 attempts)`);
    expect(server.requests).toHaveLength(3);
  });

  it("does not retry a 400; the server's error text is in the message", async () => {
    server = await fakeServer((_q, r) => errorAnswer(r, 400, "image too large for the context (9000 > 8192 tokens)"));
    const error = (await chatCompletion(body, options(server)).catch((e: unknown) => e)) as ServerError;
    expect(error.message).toBe(`${server.url} answered 400: image too large for the context (9000 > 8192 tokens)`);
    expect(error.retriable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it("times out a request that does not answer and retries it", async () => {
    server = await fakeServer(
      script(
        () => {},
        (_q, r) => completion(r, "late but here"),
      ),
    );
    const retries: string[] = [];
    const answer = await chatCompletion(body, options(server, { timeoutMs: 300 }), { onRetry: (e) => retries.push(e.message) });
    expect(answer.text).toBe("late but here");
    expect(retries).toEqual([`${server.url} did not answer within 0.3 s`]);
  });

  it("waits out a server that was killed and comes back on the same port", async () => {
    server = await fakeServer((_q, r) => completion(r, "back"));
    await server.kill();
    const s = server;
    setTimeout(() => void s.restart(), 400);
    const retries: string[] = [];
    const answer = await chatCompletion(body, options(server, { retries: 6, backoffMs: 100 }), { onRetry: (e) => retries.push(e.message) });
    expect(answer.text).toBe("back");
    expect(retries.length).toBeGreaterThan(0);
    expect(retries[0]).toMatch(/connection failed \(ECONNREFUSED\)/);
  });

  it("stops at once when the run is interrupted", async () => {
    server = await fakeServer((_q, r) => errorAnswer(r, 503, "busy", { "retry-after": "30" }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = performance.now();
    const error = await chatCompletion(body, options(server), { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ServerError);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("answers", () => {
  it("reads a stream: text, finish_reason, usage, progress while it streams", async () => {
    server = await fakeServer((_q, r, s) => streamed(s, r, ["<|ref|>text<|/ref|>", "<|det|>[[1,2,3,4]]<|/det|>", "\nHello"], "length", 20));
    const progress: number[] = [];
    const answer = await chatCompletion(body, options(server), { onTokens: (t) => progress.push(t) });
    expect(answer).toMatchObject({
      text: "<|ref|>text<|/ref|><|det|>[[1,2,3,4]]<|/det|>\nHello",
      finishReason: "length",
      completionTokens: 3,
    });
    expect(progress.slice(0, 3)).toEqual([1, 2, 3]);
  });

  it("retries a stream that breaks off, or carries an error event", async () => {
    const cut: Handler = (_q, r) => {
      r.writeHead(200, { "content-type": "text/event-stream" });
      r.write(`data: ${JSON.stringify({ choices: [{ delta: { content: "half" } }] })}\n\n`);
      r.destroy();
    };
    const failed: Handler = (_q, r) => {
      r.writeHead(200, { "content-type": "text/event-stream" });
      r.end(`data: ${JSON.stringify({ error: { message: "engine died", code: 500 } })}\n\n`);
    };
    server = await fakeServer(script(cut, failed, (_q, r, s) => streamed(s, r, ["whole"])));
    const retries: string[] = [];
    const answer = await chatCompletion(body, options(server), { onRetry: (e) => retries.push(e.message) });
    expect(answer.text).toBe("whole");
    expect(retries[1]).toBe(`${server.url}: engine died`);
  });

  it("sends the key as a bearer token and lists the models", async () => {
    server = await fakeServer((q, r) => {
      if (q.headers.authorization !== "Bearer k3y") return errorAnswer(r, 401, "no key");
      r.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: [{ id: "Unlimited-OCR", owned_by: "sglang" }] }));
    });
    expect(await listModels(options(server, { apiKey: "k3y" }))).toEqual([{ id: "Unlimited-OCR", owned_by: "sglang" }]);
    const error = (await listModels(options(server)).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(`${server.url} answered 401: no key`);
  });
});

describe("pieces", () => {
  it("reads Retry-After as seconds or a date; backoff doubles with jitter and a cap", () => {
    expect(parseRetryAfter("3")).toBe(3000);
    expect(parseRetryAfter(new Date(10_000 + 5000).toUTCString(), 10_000)).toBe(5000);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
    const e = new ServerError("x", true);
    expect(retryDelay(e, 0, { backoffMs: 100 }, () => 0)).toBe(50);
    expect(retryDelay(e, 3, { backoffMs: 100 }, () => 1)).toBe(800);
    expect(retryDelay(e, 20, { backoffMs: 100 }, () => 1)).toBe(30_000);
    expect(retryDelay(new ServerError("x", true, 429, 7000), 0, {})).toBe(7000);
    expect(retryDelay(new ServerError("x", true, 429, 900_000), 0, {})).toBe(120_000);
  });

  it("finds the server's error text in the usual shapes", () => {
    expect(errorText('{"error":{"message":"CUDA out of memory"}}')).toBe("CUDA out of memory");
    expect(errorText('{"object":"error","message":"bad model","code":404}')).toBe("bad model");
    expect(errorText('{"detail":"Not Found"}')).toBe("Not Found");
    expect(errorText("<html>\n<b>502 Bad Gateway</b></html>")).toBe("<html> <b>502 Bad Gateway</b></html>");
    expect(errorText("")).toBe("(no error text)");
  });
});
