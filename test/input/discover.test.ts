// Discovery: folders recurse, globs expand, include/exclude filter, bad inputs become problems.
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discoverDocuments, parsePathList } from "../../src/input/discover.js";
import { fixture, tempDir } from "../helpers/paths.js";

const tmp = tempDir();
const root = path.join(tmp.dir, "in");

beforeAll(() => {
  mkdirSync(path.join(root, "a/b"), { recursive: true });
  mkdirSync(path.join(root, "notes"), { recursive: true });
  copyFileSync(fixture("multi_page.pdf"), path.join(root, "top.pdf"));
  copyFileSync(fixture("table.png"), path.join(root, "a/table.png"));
  copyFileSync(fixture("blank_page.pdf"), path.join(root, "a/b/deep.pdf"));
  // A PDF without a telling name is found by its content; a text file is ignored.
  copyFileSync(fixture("blank_page.pdf"), path.join(root, "a/b/no-extension"));
  writeFileSync(path.join(root, "notes/readme.txt"), "just notes\n");
  // A ".pdf" that is text is still a candidate: opening it will report the problem.
  writeFileSync(path.join(root, "a/fake.pdf"), "not a pdf\n");
});
afterAll(tmp.cleanup);

const rel = (docs: { relative: string }[]) => docs.map((d) => d.relative).sort();

describe("discoverDocuments", () => {
  it("walks folders recursively, by content as well as by name", async () => {
    const { documents, problems } = await discoverDocuments([root], { cwd: tmp.dir });
    expect(problems).toEqual([]);
    expect(rel(documents)).toEqual(["in/a/b/deep.pdf", "in/a/b/no-extension", "in/a/fake.pdf", "in/a/table.png", "in/top.pdf"]);
  });

  it("mirrors relative to the input folder when it lies outside the current folder", async () => {
    const elsewhere = path.join(tmp.dir, "in/notes");
    const { documents } = await discoverDocuments([root], { cwd: elsewhere });
    expect(rel(documents)).toContain("a/b/deep.pdf");
  });

  it("applies --include and --exclude globs inside folders", async () => {
    const only = await discoverDocuments([root], { cwd: tmp.dir, include: ["**/*.pdf"], exclude: ["**/b/**"] });
    expect(rel(only.documents)).toEqual(["in/a/fake.pdf", "in/top.pdf"]);
  });

  it("expands glob patterns and de-duplicates repeated inputs", async () => {
    const { documents, problems } = await discoverDocuments(["in/**/*.png", "in/top.pdf", path.join(root, "top.pdf")], {
      cwd: tmp.dir,
    });
    expect(problems).toEqual([]);
    expect(rel(documents)).toEqual(["in/a/table.png", "in/top.pdf"]);
  });

  it("turns missing paths, empty folders and empty globs into problems and keeps the rest", async () => {
    const { documents, problems } = await discoverDocuments(["in/missing.pdf", "in/notes", "in/*.tiff", "in/top.pdf"], {
      cwd: tmp.dir,
    });
    expect(rel(documents)).toEqual(["in/top.pdf"]);
    expect(problems).toEqual([
      { path: "in/missing.pdf", code: "ENOENT", message: "no such file or folder" },
      { path: "in/notes", code: "NO_DOCUMENTS", message: "folder has no PDF or image documents" },
      { path: "in/*.tiff", code: "NO_DOCUMENTS", message: "pattern matched no documents" },
    ]);
  });

  it("keeps stdin as one document named stdin", async () => {
    const { documents } = await discoverDocuments(["-"], { cwd: tmp.dir });
    expect(documents).toEqual([{ path: "-", display: "-", relative: "stdin", shardKey: "-" }]);
  });

  it("parses path lists from find/xargs style input", () => {
    expect(parsePathList("a.pdf\r\n\nb c.pdf\n  \n")).toEqual(["a.pdf", "b c.pdf"]);
  });
});
