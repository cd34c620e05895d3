// Request bodies of `ocr parse --server`, field by field against the servers' documented examples (test/fixtures/server).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  chatRequest,
  DEEPSEEK_OCR,
  profileForModel,
  SGLANG_NGRAM_PROCESSOR,
  UNLIMITED_OCR,
  type ModelProfile,
  type ServerKind,
} from "../../src/server/requests.js";
import { repoRoot } from "../helpers/paths.js";

interface Fixture {
  source: string;
  offline_prompt: string;
  body: Record<string, unknown> & { messages: { role: string; content: { type: string; text?: string; image_url?: { url: string } }[] }[] };
}
const load = (name: string) => JSON.parse(readFileSync(path.join(repoRoot, "test/fixtures/server", name), "utf8")) as Fixture;

const png = (n: number) => Buffer.from(`\x89PNG fake page ${n}`, "latin1");

/** The chat text of an offline prompt: the server's chat template puts the image where <image> (and its newline) was. */
const chatText = (offline: string) => offline.replace("<image>", "").replace(/^\n/, "");

/**
 * Every field of the documented body is in ours with the same value, except: the image (ours is the page as a PNG data URL),
 * the prompt text (our model's prompt by the same rule as the example's), max_tokens (ours is the page cap we ask for),
 * and the SGLang processor (the example writes the to_str() call, ours is its value). Ours adds only max_tokens, stream
 * and stream_options.
 */
function compare(fixture: Fixture, ours: Record<string, unknown>, o: { prompt: string; pages: Buffer[]; maxTokens: number }) {
  const doc = fixture.body;
  for (const key of Object.keys(ours)) expect([...Object.keys(doc), "max_tokens", "stream", "stream_options"]).toContain(key);
  for (const [key, value] of Object.entries(doc)) {
    expect(ours, `field ${key}`).toHaveProperty([key]);
    if (key === "messages") continue;
    if (key === "max_tokens") expect(ours.max_tokens).toBe(o.maxTokens);
    else if (key === "custom_logit_processor") {
      expect(value).toBe("DeepseekOCRNoRepeatNGramLogitProcessor.to_str()");
      const callable = Buffer.from((JSON.parse(ours[key] as string) as { callable: string }).callable, "hex").toString("latin1");
      expect(callable).toContain("sglang.srt.sampling.custom_logit_processor");
      expect(callable).toContain("DeepseekOCRNoRepeatNGramLogitProcessor");
    } else expect(ours[key], `field ${key}`).toEqual(value);
  }
  const ourMessages = ours.messages as Fixture["body"]["messages"];
  expect(ourMessages).toHaveLength(doc.messages.length);
  const [mine, theirs] = [ourMessages[0]!, doc.messages[0]!];
  expect(mine.role).toBe(theirs.role);
  // the same parts in the same order (one image part per page)
  const shape = (parts: { type: string }[]) =>
    parts
      .map((p) => p.type)
      .join(",")
      .replace(/(image_url,?)+/g, "images,");
  expect(shape(mine.content)).toBe(shape(theirs.content));
  expect(mine.content.filter((p) => p.type === "image_url")).toHaveLength(o.pages.length);
  // the example's text follows from its offline prompt; ours follows from our model's prompt by the same rule
  expect(theirs.content.find((p) => p.type === "text")!.text).toBe(chatText(fixture.offline_prompt));
  expect(mine.content.find((p) => p.type === "text")!.text).toBe(chatText(o.prompt));
  mine.content
    .filter((p) => p.type === "image_url")
    .forEach((p, i) => {
      expect(p.image_url!.url.startsWith("data:image/png;base64,")).toBe(true);
      expect(Buffer.from(p.image_url!.url.slice("data:image/png;base64,".length), "base64")).toEqual(o.pages[i]);
    });
}

function ours(server: ServerKind, profile: ModelProfile, model: string, pages: Buffer[], stream: boolean) {
  return chatRequest({ model, server, profile, pages, maxTokens: 4096, stream });
}

describe("request bodies against the documented examples", () => {
  it("vLLM, DeepSeek-OCR: image then the grounding prompt, temperature 0, special tokens kept, vllm_xargs for NGramPerReqLogitsProcessor", () => {
    const fixture = load("vllm-deepseek-ocr.json");
    const body = ours("vllm", DEEPSEEK_OCR, "deepseek-ai/DeepSeek-OCR", [png(1)], false);
    compare(fixture, body, { prompt: "<image>\n<|grounding|>Convert the document to markdown.", pages: [png(1)], maxTokens: 4096 });
    expect(body).not.toHaveProperty("custom_params");
  });

  it("SGLang, Unlimited-OCR, one page: prompt then image, gundam, the no-repeat processor with n 35 in 128, streamed", () => {
    const fixture = load("sglang-unlimited-ocr-page.json");
    const body = ours("sglang", UNLIMITED_OCR, "Unlimited-OCR", [png(1)], true);
    compare(fixture, body, { prompt: "<image>document parsing.", pages: [png(1)], maxTokens: 4096 });
    expect(body).not.toHaveProperty("vllm_xargs");
  });

  it("SGLang, Unlimited-OCR, a document's pages together: Multi page parsing., base mode, window 1024", () => {
    const fixture = load("sglang-unlimited-ocr-pages.json");
    const pages = [png(1), png(2), png(3)];
    const body = ours("sglang", UNLIMITED_OCR, "Unlimited-OCR", pages, true);
    compare(fixture, body, { prompt: "<image>Multi page parsing.", pages, maxTokens: 4096 });
  });

  it("the other pairings speak the server's form with the model's numbers", () => {
    const vllmUnlimited = ours("vllm", UNLIMITED_OCR, "baidu/Unlimited-OCR", [png(1), png(2)], false);
    expect(vllmUnlimited.vllm_xargs).toEqual({ ngram_size: 35, window_size: 1024 });
    expect(vllmUnlimited).not.toHaveProperty("images_config");
    const sglangDeepseek = ours("sglang", DEEPSEEK_OCR, "deepseek-ocr", [png(1)], false);
    expect(sglangDeepseek.custom_params).toEqual({ ngram_size: 30, window_size: 90, whitelist_token_ids: [128821, 128822] });
    expect(sglangDeepseek.custom_logit_processor).toBe(SGLANG_NGRAM_PROCESSOR);
    expect(() => ours("vllm", DEEPSEEK_OCR, "x", [png(1), png(2)], false)).toThrow(/one page per request/);
  });

  it("picks the model's recipe from the served name", () => {
    expect(profileForModel("baidu/Unlimited-OCR")).toBe(UNLIMITED_OCR);
    expect(profileForModel("unlimited_ocr")).toBe(UNLIMITED_OCR);
    expect(profileForModel("deepseek-ai/DeepSeek-OCR")).toBe(DEEPSEEK_OCR);
    expect(profileForModel("my-ocr")).toBe(DEEPSEEK_OCR);
  });
});
