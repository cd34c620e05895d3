// `ocr parse` end to end: every kind of bad input gets a one-line error, the batch goes on, exit codes hold.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tableAs } from "../helpers/images.js";
import { bin, ocr } from "../helpers/cli.js";
import { fixture, repoRoot, tempDir } from "../helpers/paths.js";
import type { DocumentRecord } from "../../src/output/index.js";
import { makePdf } from "../helpers/pdf.js";

const tmp = tempDir("ocr-cli-");
const dir = tmp.dir;
const good = path.join(dir, "good.pdf");

beforeAll(async () => {
  copyFileSync(fixture("multi_page.pdf"), good);
  const real = readFileSync(fixture("multi_page.pdf"));
  mkdirSync(path.join(dir, "bad"));
  mkdirSync(path.join(dir, "nodocs"));
  writeFileSync(path.join(dir, "nodocs/readme.txt"), "no documents here\n");
  writeFileSync(path.join(dir, "bad/empty.pdf"), "");
  writeFileSync(path.join(dir, "bad/truncated.pdf"), real.subarray(0, Math.floor(real.length / 2)));
  writeFileSync(path.join(dir, "bad/corrupt.pdf"), Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(5000, 0x41)]));
  writeFileSync(path.join(dir, "bad/text.pdf"), "Dear reader, this is a text file with a .pdf name.\n");
  writeFileSync(path.join(dir, "bad/zero.png"), "");
  const png = readFileSync(fixture("table.png"));
  writeFileSync(path.join(dir, "bad/corrupt.png"), Buffer.concat([png.subarray(0, 150), Buffer.alloc(600, 9)]));
  writeFileSync(path.join(dir, "locked.pdf"), makePdf({ userPassword: "secret", text: "Locked words" }));
  writeFileSync(path.join(dir, "photo.jpg"), await tableAs("jpeg"));
  // Root reads any file whatever its mode, so use a file the kernel refuses to read back.
  const unreadable = path.join(dir, "bad/unreadable.pdf");
  if (process.getuid?.() === 0) symlinkSync("/proc/self/mem", unreadable);
  else {
    writeFileSync(unreadable, real);
    chmodSync(unreadable, 0o000);
  }
});
afterAll(tmp.cleanup);

const lines = (text: string) => text.split("\n").filter(Boolean);

describe("ocr parse --engine text", () => {
  it("names every bad input with its reason on one line, finishes the good ones, exits 1", async () => {
    const out = path.join(dir, "out-bad");
    const r = await ocr(["parse", "bad", "missing.pdf", "nodocs", "good.pdf", "--engine", "text", "-o", out], { cwd: dir });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe("");
    const errors = lines(r.stderr).filter((l) => !/ -> |documents?:/.test(l));
    expect(errors).toHaveLength(9);
    expect(errors).toEqual(
      expect.arrayContaining([
        "ocr: bad/corrupt.pdf: corrupt or truncated PDF: Invalid PDF structure.",
        expect.stringMatching(/^ocr: bad\/corrupt\.png: corrupt PNG image: /),
        "ocr: bad/empty.pdf: empty file (0 bytes)",
        "ocr: bad/text.pdf: looks like a text file, not a PDF or image",
        "ocr: bad/truncated.pdf: corrupt or truncated PDF: Invalid PDF structure.",
        expect.stringMatching(/^ocr: bad\/unreadable\.pdf: (permission denied|cannot read: )/),
        "ocr: bad/zero.png: empty file (0 bytes)",
        "ocr: missing.pdf: no such file or folder",
        "ocr: nodocs: folder has no PDF or image documents",
      ]),
    );
    expect(r.stderr).toContain("ocr: 10 documents: 1 done, 9 failed; 5 pages");
    expect(readdirSync(out)).toEqual(["good.json", "good.md"]);
  });

  it("opens encrypted PDFs only with the right password", async () => {
    const out = path.join(dir, "out-locked");
    const none = await ocr(["parse", "locked.pdf", "--engine", "text", "-o", out], { cwd: dir });
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain("ocr: locked.pdf: encrypted PDF: a password is required (use --password)\n");
    const wrong = await ocr(["parse", "locked.pdf", "--engine", "text", "-o", out, "--password", "guess"], { cwd: dir });
    expect(wrong.stderr).toContain("ocr: locked.pdf: encrypted PDF: the password given is wrong\n");
    const right = await ocr(["parse", "locked.pdf", "--engine", "text", "--stdout", "--password", "secret"], { cwd: dir });
    expect(right.exitCode).toBe(0);
    expect(right.stdout).toBe("Locked words\n");
  });

  it("downscales a page over the pixel cap with a warning and succeeds", async () => {
    const r = await ocr(
      ["parse", "good.pdf", "--engine", "text", "--pages", "1", "--max-pixels", "200000", "-o", "out-cap", "--format", "json"],
      { cwd: dir },
    );
    expect(r.exitCode).toBe(0);
    const record = JSON.parse(readFileSync(path.join(dir, "out-cap/good.json"), "utf8"));
    expect(record.pages[0].width * record.pages[0].height).toBeLessThanOrEqual(200_000);
  });

  it("stops quietly with 141 when the reader of --stdout goes away (| head), as a shell tool does", async () => {
    const child = spawn(process.execPath, [bin, "parse", good, "--engine", "text", "--stdout"], {
      cwd: dir,
      env: { ...process.env, CI: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // the reader leaves before the first byte: every write of the run meets a closed pipe
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    expect(stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(code).toBe(141);
    expect(existsSync(path.join(dir, "ocr-out"))).toBe(false);
  });

  it("writes one document's Markdown to stdout, reading it from stdin", async () => {
    const r = await ocr(["parse", "-", "--engine", "text", "--stdout", "--quiet"], {
      cwd: dir,
      input: readFileSync(good),
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^<!-- page 1 -->\n\nThe Evolution of the Word Processor\n\n/);
    // Section titles are set larger than the body: they become headings.
    expect(r.stdout).toContain("\n# Pre-Digital Era (19th - Early 20th Century)\n");
    expect(r.stdout).toContain("<!-- page 5 -->");
    expect(existsSync(path.join(dir, "ocr-out"))).toBe(false);
  });

  it("takes paths from --files-from - and mirrors the tree under the output folder", async () => {
    mkdirSync(path.join(dir, "tree/deeper"), { recursive: true });
    copyFileSync(fixture("blank_page.pdf"), path.join(dir, "tree/deeper/blank.pdf"));
    copyFileSync(good, path.join(dir, "tree/good.pdf"));
    const r = await ocr(["parse", "--files-from", "-", "--engine", "text", "-o", "out-list", "--format", "md", "--jsonl"], {
      cwd: dir,
      input: "tree/good.pdf\ntree/deeper/blank.pdf\n",
    });
    expect(r.exitCode).toBe(0);
    expect(existsSync(path.join(dir, "out-list/tree/good.md"))).toBe(true);
    expect(existsSync(path.join(dir, "out-list/tree/deeper/blank.md"))).toBe(true);
    expect(existsSync(path.join(dir, "out-list/tree/good.json"))).toBe(false);
    const events = lines(r.stdout).map((l) => JSON.parse(l) as { type: string });
    expect(events[0]).toMatchObject({ type: "run-start", documents: 2 });
    expect(events.filter((e) => e.type === "document-done")).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: "run-end", summary: { done: 2, failed: 0, exitCode: 0 } });
  });

  it("skips up-to-date outputs with --resume and processes documents in parallel with --jobs", async () => {
    const args = ["parse", "tree", "--engine", "text", "-o", "out-resume", "--jobs", "2"];
    const first = await ocr(args, { cwd: dir });
    expect(first.exitCode).toBe(0);
    expect(first.stderr).toContain("2 documents: 2 done");
    const second = await ocr([...args, "--resume"], { cwd: dir });
    expect(second.stderr).toContain("2 documents: 0 done, 2 up to date");
    const other = await ocr([...args, "--resume", "--pages", "1"], { cwd: dir });
    expect(other.stderr).toContain("2 documents: 2 done");
  });

  it("keeps running headers and page numbers out of the Markdown unless --keep-headers, in the JSON with their roles", async () => {
    const cwd = path.join(repoRoot, "fixtures/layout");
    const pdf = "mag3.pdf";
    const md = await ocr(["parse", pdf, "--engine", "text", "--stdout"], { cwd });
    expect(md.exitCode).toBe(0);
    expect(md.stdout).not.toContain("SOFTWARE QUARTERLY");
    expect(md.stdout).not.toMatch(/\n42\n/);
    // a paragraph (a word, even) that runs over the page break stays one, the page marker inside it
    expect(md.stdout).toContain("make modifica<!-- page 2 -->tions exclusively for you");
    const kept = await ocr(["parse", pdf, "--engine", "text", "--stdout", "--keep-headers"], { cwd });
    expect(kept.stdout.match(/SOFTWARE QUARTERLY/g)).toHaveLength(2);
    const out = path.join(tmp.dir, "headers");
    await ocr(["parse", pdf, "--engine", "text", "-o", out, "--format", "json"], { cwd });
    const doc = JSON.parse(readFileSync(path.join(out, "mag3.json"), "utf8")) as DocumentRecord;
    for (const page of doc.pages) {
      const margin = page.blocks.filter((b) => ["header", "footer", "page-number"].includes(b.type)).map((b) => `${b.type}:${b.text}`);
      expect(margin).toEqual(["header:SOFTWARE QUARTERLY", "header:Spring 2019", "page-number:42"]);
    }
  });

  it("works through images with the text engine, warning that they have no text layer", async () => {
    const r = await ocr(["parse", "photo.jpg", "--engine", "text", "-o", "out-img"], { cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain("ocr: photo.jpg: warning: JPEG images have no text layer");
  });
});

describe("ocr parse exit codes", () => {
  it("exits 3 with a message naming model.json when the model folder holds no model", async () => {
    mkdirSync(path.join(dir, "empty-model"), { recursive: true });
    const r = await ocr(["parse", "good.pdf", "--model", "empty-model"], { cwd: dir });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/^ocr: no (usable )?model.*empty-model\/model\.json/);
    expect(r.stderr.split("\n").filter(Boolean)).toHaveLength(1);
  });

  it.each([
    [["parse", "good.pdf", "--dpi", "abc"], /--dpi must be an integer from 18 to 1200/],
    [["parse", "good.pdf", "--pages", "5-2"], /runs backwards/],
    [["parse", "good.pdf", "--format", "pdf"], /--format takes a comma list of md, json/],
    [["parse", "good.pdf", "--attention", "sparse"], /Allowed choices are full, rswa/],
    [["parse", "good.pdf", "--focal-keep", "2"], /--focal-keep must be a number in \(0, 1\]/],
    [["parse", "good.pdf", "--no-focal", "--focal-keep", "0.1"], /--no-focal cannot be combined/],
    [["parse", "good.pdf", "--engine", "magic"], /unknown engine "magic"/],
    [["parse", "good.pdf", "--model", "no/such/folder"], /--model no\/such\/folder/],
    [["parse"], /no inputs/],
    [["parse", "good.pdf", "tree", "--stdout", "--engine", "text"], /--stdout writes one document/],
    [["parse", "good.pdf", "--bogus"], /unknown option '--bogus'/],
    [["frobnicate"], /unknown command 'frobnicate'/],
  ])("exits 2 on usage errors: %j", async (args, message) => {
    const r = await ocr(args, { cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe("");
  });

  it("shows help with examples and exits 0", async () => {
    const r = await ocr(["parse", "--help"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Examples:");
    expect(r.stdout).toContain("--files-from <file>");
    expect(r.stdout).toContain("--focal-keep <ratio>");
  });
});

describe("Ctrl-C", () => {
  it("stops cleanly, keeps finished outputs, leaves no partial file, exits 130", async () => {
    const many = path.join(dir, "many");
    mkdirSync(many);
    for (let i = 0; i < 8; i++) copyFileSync(fixture("multi_page.pdf"), path.join(many, `doc${i}.pdf`));
    const out = path.join(dir, "out-int");
    const child = (await import("execa")).execa(process.execPath, [bin, "parse", many, "--engine", "text", "-o", out, "--jsonl"], {
      reject: false,
      env: { CI: "1" },
      cwd: dir,
    });
    let signalled = false;
    child.stdout!.on("data", (chunk: Buffer) => {
      if (!signalled && chunk.toString().includes('"document-done"')) {
        signalled = true;
        child.kill("SIGINT");
      }
    });
    const result = await child;
    expect(signalled).toBe(true);
    expect(result.exitCode).toBe(130);
    expect(String(result.stderr)).toContain("interrupted");
    const files = readdirSync(out, { recursive: true })
      .map(String)
      .filter((f) => !f.endsWith("/") && /\.(md|json)$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(2);
    expect(files.length).toBeLessThan(16);
    // Every document written is complete: its Markdown and its JSON, and the JSON parses.
    for (const f of files.filter((f) => f.endsWith(".json"))) {
      expect(() => JSON.parse(readFileSync(path.join(out, f), "utf8"))).not.toThrow();
      expect(files).toContain(f.replace(/\.json$/, ".md"));
    }
    expect(
      readdirSync(out, { recursive: true })
        .map(String)
        .filter((f) => f.includes(".ocr-tmp-")),
    ).toEqual([]);
  });
});
