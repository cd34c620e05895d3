// `ocr models pull` against a local HTTP server laid out like the Hugging Face hub (tree API + resolve URLs with Range).
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { pullRepository, type PullOptions } from "../../src/model/hub.js";
import { listModels, resolveModelDir } from "../../src/model/registry.js";

const REPO = "acme/tiny-ocr";
const TOKEN = "hf_testtoken";

const weights = Buffer.alloc(300_000);
for (let i = 0; i < weights.length; i++) weights[i] = (i * 31 + 7) % 251;
const config = Buffer.from(JSON.stringify({ model_type: "deepseek_vl_v2", hidden_size: 8 }));
const readme = Buffer.from("# tiny\n");
const FILES: Record<string, Buffer> = { "config.json": config, "model.safetensors": weights, "docs/README.md": readme };
const LFS = new Set(["model.safetensors"]);

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const gitSha1 = (b: Buffer) => createHash("sha1").update(`blob ${b.length}\0`).update(b).digest("hex");

interface ServerState {
  requireToken: boolean;
  cutAfter?: number; // drop the connection after this many body bytes of the weights, once
  corrupt: boolean;
  ranges: string[];
}

describe("hub pull", () => {
  let server: http.Server;
  let endpoint: string;
  const state: ServerState = { requireToken: false, corrupt: false, ranges: [] };

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url!, "http://x");
      if (state.requireToken && req.headers.authorization !== `Bearer ${TOKEN}`) {
        res.writeHead(401).end("unauthorized");
        return;
      }
      if (url.pathname === `/api/models/${REPO}/tree/main` && url.searchParams.get("recursive") === "true") {
        const list = Object.entries(FILES).map(([p, b]) => ({
          type: "file",
          path: p,
          size: LFS.has(p) ? 134 : b.length,
          oid: gitSha1(Buffer.from(p)),
          ...(LFS.has(p) ? { lfs: { oid: sha256(b), size: b.length, pointerSize: 134 } } : { oid: gitSha1(b) }),
        }));
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify([{ type: "directory", path: "docs", size: 0 }, ...list]));
        return;
      }
      const prefix = `/${REPO}/resolve/main/`;
      if (!url.pathname.startsWith(prefix)) {
        res.writeHead(404).end();
        return;
      }
      const name = decodeURIComponent(url.pathname.slice(prefix.length));
      let body = FILES[name];
      if (!body) {
        res.writeHead(404).end();
        return;
      }
      if (state.corrupt && name === "model.safetensors") body = Buffer.concat([body.subarray(0, -1), Buffer.from([0])]);
      const range = req.headers.range;
      let start = 0;
      if (range) {
        state.ranges.push(range);
        start = Number(/bytes=(\d+)-/.exec(range)![1]);
        res.writeHead(206, { "content-length": body.length - start, "content-range": `bytes ${start}-${body.length - 1}/${body.length}` });
      } else {
        res.writeHead(200, { "content-length": body.length });
      }
      const slice = body.subarray(start);
      if (name === "model.safetensors" && state.cutAfter !== undefined) {
        const cut = state.cutAfter;
        state.cutAfter = undefined;
        res.write(slice.subarray(0, cut), () => setTimeout(() => res.destroy(), 20));
        return;
      }
      res.end(slice);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    Object.assign(state, { requireToken: false, cutAfter: undefined, corrupt: false, ranges: [] });
  });

  const envFor = async () => ({ OCR_HOME: await mkdtemp(path.join(os.tmpdir(), "ocr-home-")), HF_ENDPOINT: endpoint });

  it("downloads every file into the cache, checks hashes, and the cache lists it", async () => {
    const env = await envFor();
    const result = await pullRepository(REPO, { env });
    expect(result.dir).toBe(path.join(env.OCR_HOME, "models", "acme--tiny-ocr"));
    expect(result.files.map((f) => f.path).sort()).toEqual(["config.json", "docs/README.md", "model.safetensors"]);
    expect((await readFile(path.join(result.dir, "model.safetensors"))).equals(weights)).toBe(true);
    expect(await readFile(path.join(result.dir, "docs/README.md"), "utf8")).toBe("# tiny\n");
    const listed = (await listModels(env)).find((m) => m.name === "acme--tiny-ocr")!;
    expect(listed).toMatchObject({ repo: REPO, revision: "main", checkpoint: true, converted: false, incomplete: false });
    expect(resolveModelDir(REPO, env)).toBe(result.dir);
    // a second pull finds everything complete and downloads nothing
    const again = await pullRepository(REPO, { env });
    expect(again.files.every((f) => !f.downloaded)).toBe(true);
  });

  it("resumes an interrupted download with a Range request", async () => {
    const env = await envFor();
    state.cutAfter = 100_000;
    await expect(pullRepository(REPO, { env })).rejects.toThrow();
    const partial = path.join(env.OCR_HOME, "models", "acme--tiny-ocr", "model.safetensors.partial");
    const have = (await stat(partial)).size;
    expect(have).toBeGreaterThan(0);
    expect(have).toBeLessThan(weights.length);
    const listed = (await listModels(env)).find((m) => m.name === "acme--tiny-ocr")!;
    expect(listed.incomplete).toBe(true);
    const result = await pullRepository(REPO, { env });
    expect(state.ranges).toEqual([`bytes=${have}-`]);
    expect((await readFile(path.join(result.dir, "model.safetensors"))).equals(weights)).toBe(true);
    expect(existsSync(partial)).toBe(false);
  });

  it("keeps every byte it took in before the connection dropped, and resumes after the last", async () => {
    // the weights' body: chunks of 10,000 bytes, then the connection fails at once, no time for the file stream to
    // write out what it was given (a pipeline destroyed it on the error, and the bytes it held were lost)
    const env = await envFor();
    let cut = true;
    const dropping: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!cut || !String(input).endsWith("/model.safetensors")) return res;
      cut = false;
      let k = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (k < 10) controller.enqueue(weights.subarray(10_000 * k, 10_000 * ++k));
          else controller.error(new Error("connection reset"));
        },
      });
      await res.body?.cancel();
      return new Response(body, { status: 200, headers: res.headers });
    };
    let received = 0;
    const onProgress: PullOptions["onProgress"] = (p) => {
      if (p.kind === "bytes" && p.path === "model.safetensors") received = p.received;
    };
    await expect(pullRepository(REPO, { env, fetch: dropping, onProgress })).rejects.toThrow(/connection reset/);
    const partial = path.join(env.OCR_HOME, "models", "acme--tiny-ocr", "model.safetensors.partial");
    expect(received).toBeGreaterThan(0);
    expect((await stat(partial)).size).toBe(received);
    await pullRepository(REPO, { env });
    expect(state.ranges).toEqual([`bytes=${received}-`]);
  });

  it("rejects a file whose sha256 differs from the hub's and discards it", async () => {
    const env = await envFor();
    state.corrupt = true;
    await expect(pullRepository(REPO, { env })).rejects.toThrow(/model\.safetensors: sha256 .* does not match/);
    expect(existsSync(path.join(env.OCR_HOME, "models", "acme--tiny-ocr", "model.safetensors.partial"))).toBe(false);
  });

  it("sends HF_TOKEN, and explains a refusal without it", async () => {
    state.requireToken = true;
    const env = await envFor();
    await expect(pullRepository(REPO, { env })).rejects.toThrow(/cannot list acme\/tiny-ocr@main/);
    const result = await pullRepository(REPO, { env: { ...env, HF_TOKEN: TOKEN } });
    expect(result.files).toHaveLength(3);
  });

  it("refuses names that are not repository ids", async () => {
    const env = await envFor();
    await expect(pullRepository("../etc", { env })).rejects.toThrow(/not a Hugging Face repository id/);
    await writeFile(path.join(env.OCR_HOME, "x"), "");
  });
});
