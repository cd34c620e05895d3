// A loopback chat-completions server that misbehaves on purpose: each test scripts its answers.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
  /** Raw body text (for malformed-body tests and key leaks). */
  text: string;
  at: number;
}

export type Handler = (req: SeenRequest, res: http.ServerResponse, server: FakeServer) => void | Promise<void>;

export interface FakeServer {
  url: string;
  port: number;
  requests: SeenRequest[];
  /** Kills the server as a crash would: open connections are cut, the port refuses connections. */
  kill(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
  close(): Promise<void>;
  /** A timer that close() clears (so no test leaves work behind). */
  later(ms: number, fn: () => void): void;
}

/** The models list vLLM (owned_by "vllm") or SGLang ("sglang") answer with. */
export function modelsAnswer(res: http.ServerResponse, id: string, ownedBy: string): void {
  res
    .writeHead(200, { "content-type": "application/json" })
    .end(JSON.stringify({ object: "list", data: [{ id, object: "model", owned_by: ownedBy }] }));
}

/** A whole (non-streamed) chat completion. */
export function completion(res: http.ServerResponse, content: string, finish = "stop", tokens = 10): void {
  res.writeHead(200, { "content-type": "application/json" }).end(
    JSON.stringify({
      id: "chatcmpl-test",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: finish }],
      usage: { prompt_tokens: 300, completion_tokens: tokens, total_tokens: 300 + tokens },
    }),
  );
}

/** A streamed chat completion: the content in `pieces`, `gapMs` apart, then finish, usage and [DONE]. */
export function streamed(server: FakeServer, res: http.ServerResponse, pieces: string[], finish = "stop", gapMs = 0): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const event = (v: unknown) => res.write(`data: ${JSON.stringify(v)}\n\n`);
  return new Promise((resolve) => {
    let i = 0;
    const next = () => {
      if (res.destroyed) return resolve();
      if (i < pieces.length) {
        event({ choices: [{ index: 0, delta: { content: pieces[i++] }, finish_reason: null }] });
        if (gapMs) server.later(gapMs, next);
        else next();
        return;
      }
      event({ choices: [{ index: 0, delta: {}, finish_reason: finish }] });
      event({ choices: [], usage: { prompt_tokens: 300, completion_tokens: pieces.length, total_tokens: 300 + pieces.length } });
      res.end("data: [DONE]\n\n");
      resolve();
    };
    next();
  });
}

export function errorAnswer(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res
    .writeHead(status, { "content-type": "application/json", ...headers })
    .end(JSON.stringify({ error: { message, type: "error", code: status } }));
}

/** Width and height of the PNG a request's first image carries (the test tells pages apart by size). */
export function imageSize(req: SeenRequest, index = 0): { width: number; height: number } {
  const content = (req.body!.messages as { content: { type: string; image_url?: { url: string } }[] }[])[0]!.content;
  const url = content.filter((p) => p.type === "image_url")[index]!.image_url!.url;
  const png = Buffer.from(url.slice(url.indexOf(",") + 1), "base64");
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

export async function fakeServer(handler: Handler): Promise<FakeServer> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let port = 0;
  let server!: http.Server;
  const self: FakeServer = {
    url: "",
    port: 0,
    requests: [],
    async kill() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
    async restart() {
      await listen();
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise<void>((r) => server.close(() => r()));
    },
    later(ms, fn) {
      const t = setTimeout(() => {
        timers.delete(t);
        fn();
      }, ms);
      timers.add(t);
    },
  };
  const listen = async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: Record<string, unknown> | undefined;
        try {
          body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
        } catch {
          body = undefined;
        }
        const seen: SeenRequest = {
          method: req.method ?? "",
          path: (req.url ?? "").split("?")[0]!,
          headers: req.headers,
          body,
          text,
          at: performance.now(),
        };
        self.requests.push(seen);
        Promise.resolve(handler(seen, res, self)).catch((e: Error) => {
          if (!res.headersSent) errorAnswer(res, 599, `test handler failed: ${e.message}`);
        });
      });
    });
    server.on("connection", (s) => {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
    port = (server.address() as AddressInfo).port;
    self.port = port;
    self.url = `http://127.0.0.1:${port}`;
  };
  await listen();
  return self;
}
