// `ocr parse --server` against a loopback server that misbehaves on purpose: retries, then clean per-page errors,
// and every other page and document written. Every request loop is bounded (--server-retries, --server-timeout).
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ocr } from "../helpers/cli.js";
import { errorAnswer, fakeServer, imageSize, modelsAnswer, streamed, type FakeServer, type SeenRequest } from "../helpers/fake-server.js";
import { fixture, tempDir } from "../helpers/paths.js";

const tmp = tempDir("ocr-server-faults-");
const input = path.join(tmp.dir, "in");
let tableSize: { width: number; height: number };
beforeAll(() => {
  for (const name of ["multi_page.pdf", "blank_page.pdf", "table.png"]) {
    copyFileSync(fixture(name), path.join(tmp.dir, name));
  }
  const png = readFileSync(fixture("table.png"));
  tableSize = { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
});
afterAll(tmp.cleanup);

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const imageKey = (req: SeenRequest) => {
  const content = (req.body!.messages as { content: { type: string; image_url?: { url: string } }[] }[])[0]!.content;
  return createHash("sha256")
    .update(content.find((p) => p.type === "image_url")!.image_url!.url)
    .digest("hex")
    .slice(0, 8);
};
const grounded = (key: string) => [
  `<|ref|>title<|/ref|><|det|>[[100,50,900,120]]<|/det|>`,
  `\n# Page ${key}\n\n`,
  `<|ref|>text<|/ref|><|det|>[[100,200,900,400]]<|/det|>`,
  `\nBody of ${key}.`,
];

interface Events {
  type: string;
  source?: string;
  page?: number;
  message?: string;
  error?: string;
  truncated?: boolean;
  summary?: Record<string, number>;
}
const events = (stdout: string) =>
  stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Events);
const json = (out: string, name: string) =>
  JSON.parse(readFileSync(path.join(out, name), "utf8")) as {
    pages: {
      markdown: string;
      blocks: { type: string; bbox: number[] | null }[];
      truncated: boolean;
      tokenCount: number;
      warnings: string[];
    }[];
    model: { name: string; dir: string | null };
  };

describe("ocr parse --server against a misbehaving vLLM", () => {
  it("retries 500, 429 + Retry-After, malformed JSON and a slow answer; a page that keeps failing is a page error", async () => {
    const firstSeen: string[] = [];
    const attempts = new Map<string, number>();
    server = await fakeServer(async (req, res, s) => {
      if (req.path === "/v1/models") return modelsAnswer(res, "deepseek-ai/DeepSeek-OCR", "vllm");
      if (req.headers.authorization !== "Bearer sekrit-123") return errorAnswer(res, 401, "bad key");
      const size = imageSize(req);
      if (size.width === tableSize.width && size.height === tableSize.height)
        return errorAnswer(res, 500, "CUDA out of memory (simulated)");
      const key = imageKey(req);
      if (!firstSeen.includes(key)) firstSeen.push(key);
      const n = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, n);
      if (n === 1) {
        switch (firstSeen.indexOf(key) % 4) {
          case 0:
            return errorAnswer(res, 500, "internal error");
          case 1:
            return errorAnswer(res, 429, "too many requests", { "retry-after": "1" });
          case 2:
            return void res.writeHead(200, { "content-type": "application/json" }).end('{"id": "chatcmpl-1", "choi');
          case 3:
            return s.later(6000, () => streamed(s, res, ["too late"]));
        }
      }
      return streamed(s, res, grounded(key), "stop", 100);
    });
    const out = path.join(tmp.dir, "out-faults");
    const r = await ocr(
      [
        "parse",
        "multi_page.pdf",
        "blank_page.pdf",
        "table.png",
        "--server",
        server.url,
        "--dpi",
        "36",
        "-o",
        out,
        "--concurrency",
        "2",
        "--server-retries",
        "2",
        "--server-timeout",
        "3",
        "--jsonl",
      ],
      { cwd: tmp.dir, env: { CI: "1", OCR_SERVER_API_KEY: "sekrit-123" } },
    );
    expect(r.exitCode, r.stderr).toBe(1);
    const ev = events(r.stdout);
    const summary = ev.find((e) => e.type === "run-end")!.summary!;
    expect(summary).toMatchObject({ documents: 3, done: 3, failed: 0, pages: 7, failedPages: 1 });
    // every page of the PDFs: its own answer, parsed into blocks with boxes as a local model's output is
    const multi = json(out, "multi_page.json");
    expect(multi.model).toEqual(expect.objectContaining({ name: "deepseek-ai/DeepSeek-OCR", dir: null }));
    expect(multi.pages).toHaveLength(5);
    const keys = multi.pages.map((p) => /# Page (\w+)/.exec(p.markdown)?.[1]);
    expect(new Set(keys).size).toBe(5);
    for (const p of multi.pages) {
      expect(p.markdown).toMatch(/^# Page \w+\n\nBody of \w+\.$/);
      expect(p.blocks.map((b) => b.type)).toEqual(["heading", "paragraph"]);
      expect(p.blocks[0]!.bbox).not.toBeNull();
      expect(p.tokenCount).toBe(4);
    }
    expect(readFileSync(path.join(out, "multi_page.md"), "utf8")).toContain("# Page");
    // each image's first attempt failed one way, its second succeeded
    expect([...attempts.values()].every((n) => n === 2)).toBe(true);
    expect(attempts.size).toBe(6);
    const warnings = ev.filter((e) => e.type === "warning").map((e) => e.message!);
    expect(warnings.some((w) => /answered 500: internal error; retry 1 of 2/.test(w))).toBe(true);
    expect(warnings.some((w) => /answered 429: too many requests; retry 1 of 2 in 1\.0 s/.test(w))).toBe(true);
    expect(warnings.some((w) => /sent a malformed answer/.test(w))).toBe(true);
    expect(warnings.some((w) => /did not answer within 3 s/.test(w))).toBe(true);
    // the page that failed three times: written empty, its reason (with the server's text) in the JSON and on the page event
    const table = json(out, "table.json");
    expect(table.pages[0]!.markdown).toBe("");
    expect(table.pages[0]!.warnings.join("\n")).toContain(`${server.url} answered 500: CUDA out of memory (simulated) (after 3 attempts)`);
    const failed = ev.find((e) => e.type === "page-done" && e.source === "table.png")!;
    expect(failed.error).toContain("CUDA out of memory (simulated)");
    expect(warnings.some((w) => w.startsWith("page 1 has no text: ") && w.includes("CUDA out of memory (simulated)"))).toBe(true);
    // progress streamed as for local decoding
    expect(ev.some((e) => e.type === "page-progress" && e.source === "multi_page.pdf")).toBe(true);
    // the key went to the server and nowhere else
    for (const text of [r.stdout, r.stderr, ...readdirSync(out).map((f) => readFileSync(path.join(out, f), "utf8"))]) {
      expect(text).not.toContain("sekrit-123");
    }
  });

  it("finish_reason length marks the page truncated", async () => {
    server = await fakeServer((req, res, s) => {
      if (req.path === "/v1/models") return modelsAnswer(res, "deepseek-ai/DeepSeek-OCR", "vllm");
      return streamed(s, res, ["<|ref|>text<|/ref|><|det|>[[0,0,999,999]]<|/det|>\nA page that goes on and on"], "length");
    });
    const out = path.join(tmp.dir, "out-length");
    const r = await ocr(["parse", "blank_page.pdf", "--server", server.url, "--dpi", "36", "-o", out, "--max-tokens", "50"], {
      cwd: tmp.dir,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(server.requests.find((q) => q.path.endsWith("/completions"))!.body!.max_tokens).toBe(50);
    const page = json(out, "blank_page.json").pages[0]!;
    expect(page.truncated).toBe(true);
    expect(page.warnings).toContain("page 1 stopped at the token limit (50) before the model ended it");
    expect(r.stderr).toMatch(/1 page \(1 truncated\)/);
  });

  it("a server killed mid-run and restarted on its port: the requests it dropped are retried, every page written", async () => {
    let chats = 0;
    server = await fakeServer((req, res, s) => {
      if (req.path === "/v1/models") return modelsAnswer(res, "deepseek-ai/DeepSeek-OCR", "vllm");
      chats++;
      if (chats === 3) {
        // the crash: this request and any other in flight are cut, the port refuses connections for 1.5 s
        void s.kill().then(() => s.later(1500, () => void s.restart()));
        return;
      }
      return streamed(s, res, grounded(imageKey(req)));
    });
    const out = path.join(tmp.dir, "out-kill");
    const r = await ocr(
      [
        "parse",
        "multi_page.pdf",
        "table.png",
        "--server",
        server.url,
        "--dpi",
        "36",
        "-o",
        out,
        "--concurrency",
        "2",
        "--server-retries",
        "6",
        "--jsonl",
      ],
      { cwd: tmp.dir },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const ev = events(r.stdout);
    expect(ev.find((e) => e.type === "run-end")!.summary).toMatchObject({ done: 2, pages: 6, failedPages: 0 });
    expect(json(out, "multi_page.json").pages.every((p) => p.markdown.startsWith("# Page "))).toBe(true);
    expect(json(out, "table.json").pages[0]!.markdown).toMatch(/^# Page /);
    const warnings = ev.filter((e) => e.type === "warning").map((e) => e.message!);
    expect(warnings.some((w) => /connection failed \((ECONNRESET|UND_ERR_SOCKET|ECONNREFUSED)\)|socket/.test(w))).toBe(true);
  });

  it("a server that cannot be reached at all stops the run with exit 3 and the reason", async () => {
    server = await fakeServer(() => {});
    const url = server.url;
    await server.kill();
    const r = await ocr(["parse", "blank_page.pdf", "--server", url, "--server-retries", "1", "-o", path.join(tmp.dir, "out-none")], {
      cwd: tmp.dir,
    });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain(
      `ocr: --server: cannot list the models of ${url}: ${url}: connection failed (ECONNREFUSED) (after 2 attempts)`,
    );
    expect(existsSync(path.join(tmp.dir, "out-none"))).toBe(false);
  });
});

describe("Unlimited-OCR on SGLang: a document's pages in one request", () => {
  it("sends the pages together (base mode, window 1024) and splits the answer at <PAGE>", async () => {
    server = await fakeServer((req, res, s) => {
      if (req.path === "/v1/models") return modelsAnswer(res, "Unlimited-OCR", "sglang");
      const images = (req.body!.messages as { content: { type: string }[] }[])[0]!.content.filter((p) => p.type === "image_url").length;
      // each page's own words: text repeated at the same place on every page would be a running header
      const words = ["Alpha", "Bravo", "Charlie", "Delta", "Echo"];
      const pages = Array.from(
        { length: images },
        (_, i) => `<|ref|>text<|/ref|><|det|>[[10,10,500,60]]<|/det|>\n${words[i]} wrote image ${i + 1}`,
      );
      return streamed(s, res, [pages.join("\n<PAGE>\n")], "stop");
    });
    const out = path.join(tmp.dir, "out-unlimited");
    const r = await ocr(["parse", "multi_page.pdf", "--server", server.url, "--dpi", "36", "-o", out, "--pages", "1-3,5"], {
      cwd: tmp.dir,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const chats = server.requests.filter((q) => q.path === "/v1/chat/completions");
    expect(chats).toHaveLength(1);
    const body = chats[0]!.body!;
    expect(body.images_config).toEqual({ image_mode: "base" });
    expect(body.custom_params).toEqual({ ngram_size: 35, window_size: 1024 });
    expect((body.messages as { content: { type: string; text?: string }[] }[])[0]!.content[0]).toEqual({
      type: "text",
      text: "Multi page parsing.",
    });
    const doc = json(out, "multi_page.json");
    expect(doc.pages.map((p) => p.markdown)).toEqual([
      "Alpha wrote image 1",
      "Bravo wrote image 2",
      "Charlie wrote image 3",
      "Delta wrote image 4",
    ]);
    expect(doc.pages.every((p) => p.blocks[0]!.type === "paragraph" && p.blocks[0]!.bbox !== null)).toBe(true);
  });
});

describe("ocr serve's extensions", () => {
  it("sends up to pages_per_request pages together and takes each page's tokens, truncation and notes from ocr_pages", async () => {
    server = await fakeServer((req, res) => {
      if (req.path === "/v1/models") {
        return void res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            object: "list",
            data: [
              {
                id: "default",
                owned_by: "ocr",
                ocr: { prompt: "<image>document parsing.", max_tokens: 100, model_id: "abc123", pages_per_request: 3 },
              },
            ],
          }),
        );
      }
      const content = (req.body!.messages as { content: { type: string; text?: string }[] }[])[0]!.content;
      const n = content.filter((p) => p.type === "image_url").length;
      const first = server!.requests.filter((q) => q.path === "/v1/chat/completions").length === 1 ? 1 : 4;
      const pages = Array.from({ length: n }, (_, i) => ({
        tokens: 10 + first + i,
        truncated: first + i === 2,
        warnings:
          first + i === 2
            ? [
                "page 2 stopped at the token limit (100) before the model ended it",
                "line 3 of page 2 did not end within 50 tokens: the recogniser's reading is used",
              ]
            : [],
      }));
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: pages.map((_, i) => `Page ${first + i} text`).join("\n<PAGE>\n") },
              finish_reason: "length",
            },
          ],
          usage: { completion_tokens: 99 },
          ocr_pages: pages,
        }),
      );
    });
    const out = path.join(tmp.dir, "out-ocr-ext");
    const r = await ocr(["parse", "multi_page.pdf", "--server", server.url, "--dpi", "36", "-o", out, "--concurrency", "1"], {
      cwd: tmp.dir,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const chats = server.requests.filter((q) => q.path === "/v1/chat/completions");
    expect(
      chats.map((q) => (q.body!.messages as { content: { type: string }[] }[])[0]!.content.filter((p) => p.type === "image_url").length),
    ).toEqual([3, 2]);
    expect((chats[0]!.body!.messages as { content: { type: string; text?: string }[] }[])[0]!.content.at(-1)).toEqual({
      type: "text",
      text: "document parsing.",
    });
    expect(chats[0]!.body!.max_tokens).toBe(300);
    const doc = json(out, "multi_page.json") as ReturnType<typeof json> & { model: { id: string } };
    expect(doc.model.id).toBe("abc123");
    expect(doc.pages.map((p) => p.markdown)).toEqual(["Page 1 text", "Page 2 text", "Page 3 text", "Page 4 text", "Page 5 text"]);
    expect(doc.pages.map((p) => p.tokenCount)).toEqual([11, 12, 13, 14, 15]);
    expect(doc.pages.map((p) => p.truncated)).toEqual([false, true, false, false, false]);
    expect(doc.pages[1]!.warnings).toEqual([
      "page 2 stopped at the token limit (100) before the model ended it",
      "line 3 of page 2 did not end within 50 tokens: the recogniser's reading is used",
    ]);
    expect(doc.pages[0]!.warnings).toEqual([]);
  });
});
