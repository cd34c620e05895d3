// Prompt builder: the input id sequence of a page or document, with the span where visual embeddings go.
import type { ModelJson } from "./schema.js";
import type { Tokenizer } from "./tokenizer.js";

export const IMAGE_PLACEHOLDER = "<image>";

export interface PrefixPrompt {
  /** BOS, prompt text before <image>, one `tokens.image` id per visual embedding, prompt text after */
  ids: number[];
  /** index in `ids` of the first visual embedding */
  visualStart: number;
  visualCount: number;
}

export interface StreamingPrompt {
  /** BOS then the prompt text with the <image> placeholder removed; pages follow, each ended by tokens.page */
  ids: number[];
}

function splitPrompt(prompt: string): [string, string] {
  const parts = prompt.split(IMAGE_PLACEHOLDER);
  if (parts.length !== 2) throw new Error(`prompt must contain exactly one ${IMAGE_PLACEHOLDER}: ${JSON.stringify(prompt)}`);
  return [parts[0]!, parts[1]!];
}

/** Picks the page or document prompt: several pages in one pass need a document prompt. */
export function promptFor(model: ModelJson, pagesInPass: number, override?: string): string {
  if (override !== undefined) return override;
  if (pagesInPass > 1) {
    if (!model.prompts.document) throw new Error(`model ${model.name} reads one page at a time (no document prompt)`);
    return model.prompts.document;
  }
  return model.prompts.page;
}

/**
 * Prefix layout (DeepSeek-OCR, Unlimited-OCR): no chat template, no newline after the image, no EOS;
 * the visual embeddings of every page of the pass sit in order at the single placeholder.
 */
export function buildPrefixPrompt(tokenizer: Tokenizer, model: ModelJson, prompt: string, visualCount: number): PrefixPrompt {
  const [before, after] = splitPrompt(prompt);
  const head = [model.tokens.bos, ...tokenizer.encode(before)];
  const ids = [...head, ...new Array<number>(visualCount).fill(model.tokens.image), ...tokenizer.encode(after)];
  return { ids, visualStart: head.length, visualCount };
}

/** Streaming layout (our default model): BOS and the prompt text without its placeholder. */
export function buildStreamingPrompt(tokenizer: Tokenizer, model: ModelJson, prompt: string): StreamingPrompt {
  const [before, after] = splitPrompt(prompt);
  return { ids: [model.tokens.bos, ...tokenizer.encode(before + after)] };
}
