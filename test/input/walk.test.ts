// Folder walks that meet hostile trees: unreadable sub-folders, link loops, dangling links, devices (issue 19:
// D4, D5, D18, D21). Each is skipped with a warning, everything readable is still found, each file once.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discoverDocuments } from "../../src/input/discover.js";
import { bin } from "../helpers/cli.js";
import { fixture, tempDir } from "../helpers/paths.js";

const tmp = tempDir();
const root = path.join(tmp.dir, "tree");
beforeAll(() => {
  mkdirSync(path.join(root, "sub/deeper"), { recursive: true });
  copyFileSync(fixture("blank_page.pdf"), path.join(root, "top.pdf"));
  copyFileSync(fixture("blank_page.pdf"), path.join(root, "sub/inner.pdf"));
  copyFileSync(fixture("blank_page.pdf"), path.join(root, "sub/deeper/deep.pdf"));
});
afterAll(() => {
  chmodSync(tmp.dir, 0o700);
  tmp.cleanup();
});

const rel = (docs: { relative: string }[]) => docs.map((d) => d.relative).sort();

describe("folder walks", () => {
  it("D5: walks a symlink loop (sub/up -> ..) once: every file found once, with a warning", async () => {
    const dir = path.join(tmp.dir, "loop");
    mkdirSync(path.join(dir, "sub"), { recursive: true });
    copyFileSync(fixture("blank_page.pdf"), path.join(dir, "a.pdf"));
    copyFileSync(fixture("blank_page.pdf"), path.join(dir, "sub/b.pdf"));
    symlinkSync("..", path.join(dir, "sub/up"));
    const { documents, problems, warnings } = await discoverDocuments([dir], { cwd: tmp.dir });
    expect(problems).toEqual([]);
    expect(rel(documents)).toEqual(["loop/a.pdf", "loop/sub/b.pdf"]);
    expect(warnings).toEqual([{ path: "loop/sub/up", message: expect.stringMatching(/folder skipped: it is \. again \(a link loop/) }]);
  });

  it("D18: warns about dangling links and links that loop on themselves, and takes the good links", async () => {
    const dir = path.join(tmp.dir, "links");
    mkdirSync(dir, { recursive: true });
    copyFileSync(fixture("blank_page.pdf"), path.join(dir, "real.pdf"));
    symlinkSync("missing.pdf", path.join(dir, "dangling.pdf"));
    symlinkSync("loop-b.pdf", path.join(dir, "loop-a.pdf"));
    symlinkSync("loop-a.pdf", path.join(dir, "loop-b.pdf"));
    symlinkSync(path.join(root, "sub"), path.join(dir, "elsewhere"));
    const { documents, warnings } = await discoverDocuments([dir], { cwd: tmp.dir });
    expect(rel(documents)).toEqual(["links/elsewhere/deeper/deep.pdf", "links/elsewhere/inner.pdf", "links/real.pdf"]);
    expect(warnings.map((w) => `${w.path}: ${w.message}`).sort()).toEqual([
      "links/dangling.pdf: link skipped: its target does not exist (-> missing.pdf)",
      "links/loop-a.pdf: link skipped: it loops (-> loop-b.pdf)",
      "links/loop-b.pdf: link skipped: it loops (-> loop-a.pdf)",
    ]);
  });

  it("D21: refuses a device (/dev/zero) at once instead of reading it forever", async () => {
    const started = performance.now();
    const { documents, problems } = await discoverDocuments(["/dev/zero"], { cwd: tmp.dir });
    expect(documents).toEqual([]);
    expect(problems).toEqual([{ path: "/dev/zero", code: "UNSUPPORTED", message: "is a device, not a document" }]);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("D4: an unreadable sub-folder is skipped with a warning; the readable files are parsed", () => {
    const locked = path.join(root, "sub/deeper");
    chmodSync(locked, 0o000);
    try {
      const out = path.join(tmp.dir, "out-d4");
      mkdirSync(out, { mode: 0o777 });
      chmodSync(out, 0o777);
      chmodSync(tmp.dir, 0o755);
      // root reads any folder: run the CLI as nobody there, so the permission bits count
      const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
      let stdout = "";
      try {
        stdout = execFileSync(process.execPath, [bin, "parse", root, "-o", out, "--engine", "text", "--jsonl"], {
          cwd: tmp.dir,
          env: { ...process.env, CI: "1" },
          stdio: ["ignore", "pipe", "pipe"],
          encoding: "utf8",
          ...asUser,
        });
      } catch (error) {
        stdout = String((error as { stdout?: string }).stdout ?? "");
      }
      const events = stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; source?: string; message?: string });
      expect(events.find((e) => e.type === "warning")).toMatchObject({
        source: "tree/sub/deeper",
        message: "folder skipped: permission denied",
      });
      expect(
        events
          .filter((e) => e.type === "document-done")
          .map((e) => e.source)
          .sort(),
      ).toEqual(["tree/sub/inner.pdf", "tree/top.pdf"]);
      expect(existsSync(path.join(out, "tree/top.md"))).toBe(true);
    } finally {
      chmodSync(locked, 0o755);
    }
  });
});
