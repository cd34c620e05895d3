// Outputs are committed as a set, flushed before they are renamed, and a failed write names the file the user
// asked for (issue 19: D11, D16). The write layer is stubbed here to fail like a full disk; the fault suite
// (test/faults) does the same on a real 40 KB tmpfs where mounting is allowed.
import { readdirSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { DOCUMENT_SCHEMA, type DocumentRecord } from "../../src/output/schema.js";
import { tempDir } from "../helpers/paths.js";

const stub = vi.hoisted(() => ({ failOn: undefined as RegExp | undefined, log: [] as string[] }));
vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  return {
    ...real,
    async open(file: string, ...rest: unknown[]) {
      const handle = await (real.open as (...a: unknown[]) => Promise<import("node:fs/promises").FileHandle>)(file, ...rest);
      const name = path.basename(String(file));
      // the writer uses writeFile, sync and close of the handle
      return {
        async writeFile(data: unknown) {
          if (stub.failOn?.test(name)) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
          stub.log.push(`write ${name}`);
          return handle.writeFile(data as string);
        },
        async sync() {
          stub.log.push(`sync ${name}`);
          return handle.sync();
        },
        close: () => handle.close(),
      };
    },
    async rename(from: string, to: string) {
      stub.log.push(`rename ${path.basename(to)}`);
      return real.rename(from, to);
    },
  };
});

const { sweepTempFiles, TEMP_PREFIX } = await import("../../src/output/atomic.js");
const { writeDocumentOutputs } = await import("../../src/output/write.js");

const tmp = tempDir();
afterAll(tmp.cleanup);
beforeEach(() => {
  stub.failOn = undefined;
  stub.log = [];
});

function record(): DocumentRecord {
  return {
    schema: DOCUMENT_SCHEMA,
    producer: { name: "ocr", version: "0.0.0" },
    source: { path: "a.pdf", kind: "pdf", bytes: 10, sha256: "00", pageCount: 1 },
    settings: { engine: "text" },
    model: null,
    resumeKey: "k",
    pages: [],
    warnings: [],
    timings: { startedAt: "", finishedAt: "", totalMs: 0 },
  } as unknown as DocumentRecord;
}

describe("committing a document's outputs", () => {
  it("D11: a full disk while NAME.json is written leaves neither new file, and the error names NAME.json", async () => {
    const out = path.join(tmp.dir, "full");
    stub.failOn = /^\.ocr-tmp-doc\.json\./;
    const error = await writeDocumentOutputs(record(), out, "doc", ["md", "json"]).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(`cannot write ${path.join(out, "doc.json")}: no space left on device (ENOSPC)`);
    expect(readdirSync(out)).toEqual([]);
  });

  it("D16: every file is flushed before any is renamed into place", async () => {
    const out = path.join(tmp.dir, "sync");
    await writeDocumentOutputs(record(), out, "doc", ["md", "json"]);
    const steps = stub.log.map((s) => s.replace(/\.\d+\.[0-9a-f]{8}$/, ""));
    expect(steps).toEqual([
      "write .ocr-tmp-doc.md",
      "sync .ocr-tmp-doc.md",
      "write .ocr-tmp-doc.json",
      "sync .ocr-tmp-doc.json",
      "rename doc.md",
      "rename doc.json",
      "sync sync",
    ]);
  });

  it("D16: sweeps temp files of dead writers, and leaves a live writer's alone", async () => {
    const out = path.join(tmp.dir, "sweep");
    const dead = path.join(out, "a/b", `${TEMP_PREFIX}x.md.4194303.deadbeef`);
    const live = path.join(out, "a", `${TEMP_PREFIX}y.md.${process.ppid}.cafebabe`);
    const oldStyle = path.join(out, `${TEMP_PREFIX}z.json.1a2b3c4d`);
    const fresh = path.join(out, `${TEMP_PREFIX}w.json.0a0b0c0d`);
    for (const f of [dead, live, oldStyle, fresh]) {
      (await import("node:fs")).mkdirSync(path.dirname(f), { recursive: true });
      writeFileSync(f, "x");
    }
    const dayAgo = new Date(Date.now() - 25 * 3600 * 1000);
    utimesSync(oldStyle, dayAgo, dayAgo);
    expect((await sweepTempFiles(out)).sort()).toEqual([dead, oldStyle].sort());
    expect(readdirSync(out).sort()).toEqual([path.basename(fresh), "a"].sort());
    expect(readdirSync(path.join(out, "a")).sort()).toEqual([path.basename(live), "b"].sort());
  });
});
