// The programmatic API with the default model: parse(path | bytes) → DocumentRecord, events, the async iterator, errors.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseEvents, ParseError, type ParseEvent, type RunEvent } from "../../src/index.js";
import { repoRoot } from "../helpers/paths.js";

const pdf = path.join(repoRoot, "test/e2e/fixtures/synth-1page.pdf");

describe("parse()", () => {
  it("parses bytes into the same record NAME.json holds, with progress events", async () => {
    const seen: RunEvent[] = [];
    const doc = await parse(readFileSync(pdf), { name: "one.pdf", maxTokens: 12, threads: 1, onEvent: (e) => seen.push(e) });
    expect(doc.schema).toBe("ocr-document/2");
    expect(doc.source).toMatchObject({ path: "one.pdf", kind: "pdf", pageCount: 1 });
    expect(doc.model?.name).toBe("default");
    expect(doc.settings).toMatchObject({ engine: "model", model: { maxTokens: 12 } });
    expect(doc.pages).toHaveLength(1);
    expect(doc.pages[0]).toMatchObject({ page: 1, tokenCount: 12, truncated: true });
    expect(seen.map((e) => e.type)).toEqual(["run-start", "document-start", "warning", "page-done", "document-done", "run-end"]);
    const pageDone = seen.find((e) => e.type === "page-done");
    expect(pageDone).toMatchObject({ page: 1, tokenCount: 12 });
  });

  it("yields events then the document from parseEvents", async () => {
    const got: ParseEvent[] = [];
    for await (const e of parseEvents(pdf, { maxTokens: 12, threads: 1, pages: "1" })) got.push(e);
    expect(got.at(-2)?.type).toBe("run-end");
    const last = got.at(-1)!;
    expect(last.type).toBe("document");
    if (last.type === "document") expect(last.document.pages[0]?.tokenCount).toBe(12);
  });

  it("rejects with ParseError naming the reason for a document it cannot read", async () => {
    const err = await parse(Buffer.from("just some text\n"), { name: "notes.pdf" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseError);
    expect((err as ParseError).source).toBe("notes.pdf");
    expect((err as ParseError).message).toMatch(/^notes\.pdf: .*text file/);
  });

  it("rejects a --model that names nothing as a usage error", async () => {
    const err = await parse(pdf, { model: path.join(repoRoot, "no/such/model") }).catch((e: unknown) => e);
    expect((err as { exitCode?: number }).exitCode).toBe(2);
  });
});

describe("parse() on several documents", () => {
  it("refuses a folder that holds more than one document, before decoding anything", async () => {
    const pages: number[] = [];
    const err = await parse(path.join(repoRoot, "test/e2e/fixtures"), {
      onEvent: (e) => e.type === "page-done" && pages.push(e.page),
    }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/names \d+ documents; parse\(\) reads one/);
    expect((err as { exitCode?: number }).exitCode).toBe(2);
    expect(pages).toEqual([]);
  });
});
