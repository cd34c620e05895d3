// Tokenizer wrapper and prompt builder against the DeepSeek-V3 tokenizer with the OCR special tokens.
import { describe, expect, it } from "vitest";
import { modelJsonFromCheckpointConfig } from "../../src/model/checkpoint-config.js";
import { buildPrefixPrompt, buildStreamingPrompt, promptFor } from "../../src/model/prompt.js";
import { OCR_SPECIAL_TOKENS, Tokenizer, withOcrSpecialTokens } from "../../src/model/tokenizer.js";
import { deepseekOcrConfig, deepseekV3TokenizerFiles, ocrTokenizer } from "./helpers.js";

describe("tokenizer", () => {
  it("encodes the Unlimited-OCR prompts to the published ids", () => {
    const tok = ocrTokenizer();
    expect(tok.encode("document parsing.")).toEqual([34030, 76466, 16]);
    expect(tok.encode("Multi page parsing.")).toEqual([37460, 4366, 76466, 16]);
  });

  it("maps every OCR special token to its id, inside running text too", () => {
    const tok = ocrTokenizer();
    for (const [content, id] of OCR_SPECIAL_TOKENS) {
      expect(tok.tokenId(content)).toBe(id);
      expect(tok.encode(content)).toEqual([id]);
    }
    const ids = tok.encode("<|ref|>title<|/ref|><|det|>[[1, 2, 3, 4]]<|/det|>");
    expect(ids[0]).toBe(128816);
    expect(ids).toContain(128817);
    expect(ids).toContain(128818);
    expect(ids[ids.length - 1]).toBe(128819);
  });

  it("round-trips text with special tokens through decode", () => {
    const tok = ocrTokenizer();
    const text = "<|ref|>table<|/ref|><|det|>[[10, 20, 300, 400]]<|/det|>\n<table><tr><td>a</td></tr></table>";
    expect(tok.decode(tok.encode(text))).toBe(text);
  });

  it("refuses to overwrite an existing token id with a different OCR token", () => {
    const { tokenizerJson } = deepseekV3TokenizerFiles();
    const clash = { ...tokenizerJson, added_tokens: [{ id: 128815, content: "<other>", special: true }] };
    expect(() => withOcrSpecialTokens(clash)).toThrow(/128815/);
  });

  it("rejects a file that is not a tokenizer.json", async () => {
    const os = await import("node:os");
    const fs = await import("node:fs/promises");
    const dir = await fs.mkdtemp((await import("node:path")).join(os.tmpdir(), "tok-"));
    await fs.writeFile(`${dir}/tokenizer.json`, JSON.stringify({ hello: 1 }));
    await expect(Tokenizer.load(`${dir}/tokenizer.json`)).rejects.toThrow(/tokenizer\.json.*not a Hugging Face tokenizer/);
  });
});

describe("prompt builder", () => {
  const unlimited = modelJsonFromCheckpointConfig(deepseekOcrConfig({ sliding_window_size: 128, max_position_embeddings: 32768 }), {
    name: "unlimited-ocr",
    weights: ["model.safetensors"],
  });
  const deepseek = modelJsonFromCheckpointConfig(deepseekOcrConfig(), { name: "deepseek-ocr", weights: ["model.safetensors"] });

  it("lays out BOS, one placeholder per visual embedding, then the prompt text (Unlimited-OCR, one page)", () => {
    const p = buildPrefixPrompt(ocrTokenizer(), unlimited, promptFor(unlimited, 1), 273);
    expect(p.visualStart).toBe(1);
    expect(p.ids.length).toBe(1 + 273 + 3);
    expect(p.ids[0]).toBe(0);
    expect(p.ids.slice(1, 274).every((id) => id === 128815)).toBe(true);
    expect(p.ids.slice(274)).toEqual([34030, 76466, 16]);
  });

  it("uses the multi-page prompt with every page's embeddings at the one placeholder", () => {
    const p = buildPrefixPrompt(ocrTokenizer(), unlimited, promptFor(unlimited, 3), 3 * 273);
    expect(p.ids.length).toBe(1 + 819 + 4);
    expect(p.ids.slice(-4)).toEqual([37460, 4366, 76466, 16]);
    expect(p.ids.at(-5)).toBe(128815);
  });

  it("puts the DeepSeek-OCR grounding prompt after the image, newline first, no EOS", () => {
    const tok = ocrTokenizer();
    const p = buildPrefixPrompt(tok, deepseek, promptFor(deepseek, 1), 273);
    const after = p.ids.slice(1 + 273);
    expect(after).toEqual(tok.encode("\n<|grounding|>Convert the document to markdown."));
    expect(after[1]).toBe(128820);
    expect(after).not.toContain(1);
    expect(() => promptFor(deepseek, 2)).toThrow(/one page at a time/);
  });

  it("drops the placeholder in the streaming layout", () => {
    const streaming = { ...unlimited, layout: "streaming" as const, tokens: { ...unlimited.tokens, page: 5 } };
    expect(buildStreamingPrompt(ocrTokenizer(), streaming, "<image>document parsing.").ids).toEqual([0, 34030, 76466, 16]);
  });
});
