// Markdown/JSON writers, output naming and the --resume check (grounding has its own suite).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  assignOutputStems,
  continuesOverPage,
  documentMarkdown,
  DOCUMENT_SCHEMA,
  escapeMarkdownInline,
  escapeMarkdownLineStart,
  outputsUpToDate,
  writeDocumentOutputs,
  type DocumentRecord,
} from "../../src/output/index.js";
import { tempDir } from "../helpers/paths.js";

const tmp = tempDir();
afterAll(tmp.cleanup);

function record(resumeKey: string): DocumentRecord {
  return {
    schema: DOCUMENT_SCHEMA,
    producer: { name: "ocr", version: "0.0.0" },
    source: { path: "a.pdf", kind: "pdf", bytes: 10, sha256: "00", pageCount: 2 },
    settings: { engine: "text" },
    model: null,
    resumeKey,
    pages: [1, 2].map((page) => ({
      page,
      width: 100,
      height: 200,
      dpi: 150,
      markdown: `# Page ${page}\n\ntext`,
      blocks: [{ type: "heading", level: 1, text: `Page ${page}`, bbox: [1, 2, 3, 4] as [number, number, number, number] }],
      truncated: false,
      tokenCount: 0,
      timings: { total: 1 },
      warnings: [],
    })),
    warnings: [],
    timings: { startedAt: "", finishedAt: "", totalMs: 1 },
  };
}

describe("Markdown", () => {
  it("joins pages with page markers only for multi-page documents", () => {
    expect(documentMarkdown([{ page: 1, markdown: "one\n" }], 1)).toBe("one\n");
    expect(
      documentMarkdown(
        [
          { page: 2, markdown: "Page two." },
          { page: 3, markdown: "Page three." },
        ],
        5,
      ),
    ).toBe("<!-- page 2 -->\n\nPage two.\n\n<!-- page 3 -->\n\nPage three.\n");
    expect(documentMarkdown([{ page: 1, markdown: "  " }], 1)).toBe("");
  });

  it("keeps a paragraph that runs over a page break one paragraph, the page marker inside it", () => {
    const pages = [
      { page: 1, markdown: "# Scope\n\nThe licence applies to every work that is" },
      { page: 2, markdown: "distributed under it, in source or object form.\n\nA new paragraph." },
    ];
    expect(documentMarkdown(pages, 2)).toBe(
      "<!-- page 1 -->\n\n# Scope\n\nThe licence applies to every work that is <!-- page 2 --> distributed under it, in source or object form.\n\nA new paragraph.\n",
    );
    // a word hyphenated over the break is joined; a finished sentence, a heading or a table is not continued
    expect(
      documentMarkdown(
        [
          { page: 1, markdown: "the exam-" },
          { page: 2, markdown: "ple shows" },
        ],
        2,
      ),
    ).toBe("<!-- page 1 -->\n\nthe exam<!-- page 2 -->ple shows\n");
    expect(
      documentMarkdown(
        [
          { page: 1, markdown: "It ends here." },
          { page: 2, markdown: "and more" },
        ],
        2,
      ),
    ).toContain("\n\n<!-- page 2 -->\n\nand more");
    expect(
      documentMarkdown(
        [
          { page: 1, markdown: "## A heading" },
          { page: 2, markdown: "text" },
        ],
        2,
      ),
    ).toContain("\n\n<!-- page 2 -->");
    expect(
      documentMarkdown(
        [
          { page: 1, markdown: "<table><tr><td>a</td></tr></table>" },
          { page: 2, markdown: "text" },
        ],
        2,
      ),
    ).toContain("\n\n<!-- page 2 -->");
    expect(continuesOverPage("some text,", "Paris is")).toBe(true);
    expect(continuesOverPage("The End", "Chapter Two")).toBe(false);
  });

  it("escapes markup characters in running text and at line starts", () => {
    expect(escapeMarkdownInline("a*b_c [x] <y> `z` \\")).toBe("a\\*b\\_c \\[x\\] \\<y\\> \\`z\\` \\\\");
    expect(escapeMarkdownLineStart("# not a heading")).toBe("\\# not a heading");
    expect(escapeMarkdownLineStart("12. not a list")).toBe("12\\. not a list");
    expect(escapeMarkdownLineStart("plain")).toBe("plain");
  });
});

describe("output names", () => {
  it("mirrors paths and keeps extensions only where stems collide", () => {
    expect(assignOutputStems(["a/r.pdf", "a/r.png", "b/r.pdf", "c/x.tiff"])).toEqual(["a/r.pdf", "a/r.png", "b/r", "c/x"]);
  });
});

describe("writing and resuming", () => {
  it("writes Markdown and JSON and recognises them as up to date for the same key only", async () => {
    const out = path.join(tmp.dir, "out");
    const files = await writeDocumentOutputs(record("key-1"), out, "sub/a", ["md", "json"]);
    expect(files).toEqual([path.join(out, "sub/a.md"), path.join(out, "sub/a.json")]);
    expect(readFileSync(files[0]!, "utf8")).toContain("<!-- page 2 -->");
    expect(JSON.parse(readFileSync(files[1]!, "utf8")).schema).toBe(DOCUMENT_SCHEMA);
    expect(await outputsUpToDate(out, "sub/a", ["md", "json"], "key-1")).toBe(true);
    expect(await outputsUpToDate(out, "sub/a", ["md", "json"], "key-2")).toBe(false);
    writeFileSync(files[1]!, "{ truncated");
    expect(await outputsUpToDate(out, "sub/a", ["md", "json"], "key-1")).toBe(false);
  });

  it("keeps the resume key in a hidden file for Markdown-only runs", async () => {
    const out = path.join(tmp.dir, "md-only");
    await writeDocumentOutputs(record("k"), out, "doc", ["md"]);
    expect(await outputsUpToDate(out, "doc", ["md"], "k")).toBe(true);
    expect(await outputsUpToDate(out, "doc", ["md", "json"], "k")).toBe(false);
  });
});
