// Checkpoint → bundle on a reduced-width random checkpoint with the real names and layout: the same generator,
// exporter and converter as the full-size run, then tokenizer, preprocessing, encoder and layout on the result.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { lstat, mkdtemp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Bundle } from "../../src/model/bundle.js";
import { convertCheckpoint, findPython, pythonEnv } from "../../src/model/convert.js";
import { buildPrefixPrompt, promptFor } from "../../src/model/prompt.js";
import { readTensorF32 } from "../../src/model/safetensors.js";
import { Tokenizer } from "../../src/model/tokenizer.js";
import { VisionEncoder } from "../../src/vision/encoder.js";
import { assembleVisualEmbeddings } from "../../src/vision/visual-sequence.js";
import { preparePage } from "../../src/vision/preprocess.js";
import { ocr } from "../helpers/cli.js";

describe("checkpoint conversion (reduced widths)", () => {
  let root: string;
  let unlimited: Bundle;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "ckpt-"));
    const args = ["-m", "ocr_tools.deepencoder.make_random_checkpoint", "--reduced", "--threads", "1", "--out", path.join(root, "ds")];
    execFileSync(findPython(), args, { stdio: "pipe", env: pythonEnv() });
    unlimited = await convertCheckpoint(path.join(root, "ds-unlimited"), { name: "tiny-unlimited" });
  });

  it("writes model.json from config.json with the Unlimited-OCR settings made explicit", async () => {
    const m = unlimited.json;
    expect(m).toMatchObject({
      family: "unlimited-ocr",
      layout: "prefix",
      name: "tiny-unlimited",
      attention: { kind: "rswa", window: 128 },
      tokens: { bos: 0, eos: 1, image: 128815 },
      prompts: { page: "<image>document parsing.", document: "<image>Multi page parsing." },
      decoding: { no_repeat_ngram: { n: 35, window: 128, document_window: 1024, exempt: [128821, 128822] } },
    });
    expect(m.decoder).toMatchObject({
      hidden_size: 24,
      head_dim: 12,
      n_routed_experts: 4,
      num_experts_per_tok: 2,
      max_position_embeddings: 32768,
      weights: ["model.safetensors.index.json"],
    });
    // a page alone is read in Gundam (2 to 32 tiles), the pages of a multi-page pass in Base
    expect(m.vision.mode).toBe("gundam");
    expect(m.vision.document_mode).toBe("base");
    expect(m.vision.modes.gundam!.tiles!.max_tiles).toBe(32);
    const onDisk = JSON.parse(await readFile(path.join(unlimited.dir, "model.json"), "utf8"));
    expect(onDisk).toEqual(m);
  });

  it("gives a runnable bundle: tokenizer, prompt, preprocessing, encoder and layout agree", async () => {
    const tokenizer = await Tokenizer.load(unlimited.tokenizerPath);
    const page = { width: 850, height: 1100, data: Buffer.alloc(850 * 1100 * 3, 200) };
    const prepared = await preparePage(page, unlimited.json.vision, unlimited.json.vision.document_mode);
    expect(prepared.visualTokens).toBe(273);
    const prompt = buildPrefixPrompt(tokenizer, unlimited.json, promptFor(unlimited.json, 1), prepared.visualTokens);
    expect(prompt.ids.slice(-3)).toEqual([34030, 76466, 16]);

    const encoder = await VisionEncoder.open(unlimited.encoderPath, { device: "cpu", threads: 1 });
    try {
      const out = await encoder.encode(prepared.global.pixels, [1, 3, 1024, 1024]);
      expect(out.dims).toEqual([1, 16, 16, 24]);
      const newline = await readTensorF32(unlimited.tensors.get("model.image_newline")!);
      const separator = await readTensorF32(unlimited.tensors.get("model.view_seperator")!);
      const visual = assembleVisualEmbeddings(prepared.sequence, { hidden: 24, global: out.data, newline, separator });
      expect(visual.length).toBe(273 * 24);
      expect([...visual.subarray(16 * 24, 17 * 24)]).toEqual([...newline]); // after the first grid row
      expect([...visual.subarray(272 * 24)]).toEqual([...separator]);
      expect(visual.every(Number.isFinite)).toBe(true);
    } finally {
      await encoder.close();
    }
  });

  it("detects DeepSeek-OCR from a config without a sliding window, and links weights into another folder", async () => {
    const out = path.join(root, "bundle-ds");
    const b = await convertCheckpoint(path.join(root, "ds"), { out, mode: "gundam" });
    expect(b.json).toMatchObject({
      family: "deepseek-ocr",
      attention: { kind: "full" },
      prompts: { page: "<image>\n<|grounding|>Convert the document to markdown." },
      decoding: { no_repeat_ngram: { n: 30, window: 90 } },
    });
    expect(b.json.vision.mode).toBe("gundam");
    expect((await lstat(path.join(out, "model-00001-of-000001.safetensors"))).isSymbolicLink()).toBe(true);
    expect((await lstat(path.join(out, "tokenizer.json"))).isSymbolicLink()).toBe(true);
    expect(existsSync(path.join(out, "encoder.onnx"))).toBe(true);
    expect(b.decoderParameters).toBeGreaterThan(2 * 129280 * 24);
  });

  it("runs end to end through ocr parse: structure, truncation and timings (meaningless text)", async () => {
    const out = path.join(root, "parsed");
    const r = await ocr([
      "parse",
      "fixtures/docs/multi_page.pdf",
      "--pages",
      "1-2",
      "--model",
      unlimited.dir,
      "--max-tokens",
      "6",
      "--threads",
      "1",
      "-o",
      out,
      "-q",
    ]);
    expect(r.stderr, r.stderr).not.toMatch(/error/i);
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(await readFile(path.join(out, "fixtures/docs/multi_page.json"), "utf8"));
    expect(doc.model).toMatchObject({ name: "tiny-unlimited", dir: unlimited.dir });
    expect(doc.pages.map((p: { page: number }) => p.page)).toEqual([1, 2]);
    // one pass over both pages (Multi page parsing.), 2 × 6 tokens without EOS or <PAGE>: nothing ended properly
    expect(doc.pages.every((p: { truncated: boolean }) => p.truncated)).toBe(true);
    expect(Object.keys(doc.pages[0].timings)).toEqual(expect.arrayContaining(["render", "encode", "prefill", "decode"]));
    expect([doc.pages[0].width, doc.pages[0].height]).toEqual([1240, 1754]); // A4 at 150 dpi
  });

  it("runs the native decoder as the PyTorch reference does, layer by layer, full attention and R-SWA", () => {
    // the full-size check is the same two scripts on the 6.7 GB random checkpoint (docs/real-models.md)
    const dump = path.join(root, "decoder-dump");
    execFileSync(
      process.execPath,
      ["scripts/deepencoder/check_decoder.mjs", unlimited.dir, dump, "--tokens", "12", "--window", "4", "--threads", "1"],
      { stdio: "pipe" },
    );
    execFileSync(findPython(), ["-m", "ocr_tools.deepencoder.check_decoder", unlimited.dir, dump], { stdio: "pipe", env: pythonEnv() });
    const report = JSON.parse(readFileSync(path.join(dump, "report.json"), "utf8"));
    // a token may differ only where the reference's own top-2 margin is inside rounding (kernel sets differ by CPU)
    expect(report.full.clear_disagreements).toBe(0);
    expect(report.rswa.clear_disagreements).toBe(0);
    expect(report.full.layers.every((l: { rel_rms: number }) => l.rel_rms < 1e-4)).toBe(true);
    expect(report.full.layers).toHaveLength(2);
    expect(report.full_vs_rswa_probe_max_abs).toBeGreaterThan(100 * report.rswa.probe_logits_max_abs);
  });

  it("names config.json when the checkpoint uses an unsupported attention", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "mla-"));
    const fs = await import("node:fs/promises");
    await fs.writeFile(path.join(dir, "config.json"), JSON.stringify({ use_mla: true, kv_lora_rank: 512 }));
    await fs.writeFile(path.join(dir, "tokenizer.json"), "{}");
    await fs.writeFile(path.join(dir, "model.safetensors"), "");
    await expect(convertCheckpoint(dir)).rejects.toThrow(/config\.json: multi-head latent attention/);
  });
});
