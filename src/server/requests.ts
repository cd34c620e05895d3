// Chat-completions request bodies for the OCR models, as each server's recipe writes them.
//
// Sources (kept as fixtures, with the exact bodies, in test/fixtures/server/):
// - vLLM, DeepSeek-OCR: vllm-project/recipes DeepSeek/DeepSeek-OCR.md, "Online OCR serving": image part then text part,
//   max_tokens, temperature 0.0, skip_special_tokens false, vllm_xargs {ngram_size 30, window_size 90,
//   whitelist_token_ids [128821, 128822]} for NGramPerReqLogitsProcessor (vllm serve --logits_processors …).
// - SGLang, Unlimited-OCR: baidu/Unlimited-OCR README.md "SGLang" (and infer.py): text part then the image parts,
//   temperature 0, skip_special_tokens false, images_config {image_mode}, custom_logit_processor
//   DeepseekOCRNoRepeatNGramLogitProcessor.to_str(), custom_params {ngram_size 35, window_size 128 for one page,
//   1024 for several}, stream true; one page in gundam mode, several pages (base mode) in one request.
// The other two pairings (DeepSeek-OCR on SGLang, Unlimited-OCR on vLLM) send the model's recipe (prompt, n-gram
// numbers, part order) in that server's own argument form.

/** Which OpenAI-compatible server answers; told apart by /v1/models' `owned_by`. */
export type ServerKind = "vllm" | "sglang" | "ocr";

/** How a model wants its pages asked for. */
export interface ModelProfile {
  family: "deepseek-ocr" | "unlimited-ocr" | "ocr";
  /** The text part: the model's prompt without its `<image>` (the server's chat template puts the image there). */
  pageText: string;
  /** Several pages in one request (Unlimited-OCR): the text part, at most `pagesPerRequest` pages. */
  documentText?: string;
  pagesPerRequest: number;
  /** Image parts before the text part (DeepSeek-OCR's vLLM recipe) or after it (Unlimited-OCR's SGLang recipe). */
  imageFirst: boolean;
  /** No-repeat n-gram rule: n, its look-back for one page and for several (the servers' window_size), token ids exempt. */
  ngram?: { size: number; lookback: number; documentLookback?: number; whitelist?: number[] };
  /** images_config.image_mode (SGLang) for one page and for several. */
  imageMode?: { page: string; document: string };
  /** max_tokens when --max-tokens is not given. */
  maxTokens: number;
}

/** DeepSeek-OCR: the grounding prompt ("<image>\n<|grounding|>Convert the document to markdown."), n-gram 30 in 90. */
export const DEEPSEEK_OCR: ModelProfile = {
  family: "deepseek-ocr",
  pageText: "<|grounding|>Convert the document to markdown.",
  pagesPerRequest: 1,
  imageFirst: true,
  ngram: { size: 30, lookback: 90, whitelist: [128821, 128822] },
  maxTokens: 8192,
};

/** Unlimited-OCR: "<image>document parsing." for a page, "<image>Multi page parsing." for up to 8 pages; n-gram 35. */
export const UNLIMITED_OCR: ModelProfile = {
  family: "unlimited-ocr",
  pageText: "document parsing.",
  documentText: "Multi page parsing.",
  pagesPerRequest: 8,
  imageFirst: false,
  ngram: { size: 35, lookback: 128, documentLookback: 1024 },
  imageMode: { page: "gundam", document: "base" },
  maxTokens: 8192,
};

/**
 * SGLang's serialised DeepseekOCRNoRepeatNGramLogitProcessor: `json.dumps({"callable": dill.dumps(cls).hex()})`
 * (CustomLogitProcessor.to_str). dill pickles an importable class by reference, so this is the protocol-4 pickle of
 * the name sglang.srt.sampling.custom_logit_processor.DeepseekOCRNoRepeatNGramLogitProcessor; computed with dill
 * 0.3.6 (Debian python3-dill) and checked to load back to that class.
 */
export const SGLANG_NGRAM_PROCESSOR = JSON.stringify({
  callable:
    "80049559000000000000008c2a73676c616e672e7372742e73616d706c696e672e637573746f6d5f6c6f6769745f70726f636573736f72948c26446565707365656b4f43524e6f5265706561744e4772616d4c6f67697450726f636573736f729493942e",
});

/** The profile a served model name implies (DeepSeek-OCR when the name says nothing). */
export function profileForModel(name: string): ModelProfile {
  if (/unlimited[-_ ]?ocr/i.test(name)) return UNLIMITED_OCR;
  return DEEPSEEK_OCR;
}

/** A PNG page as the data URL the recipes send. */
export function imagePart(png: Uint8Array): { type: "image_url"; image_url: { url: string } } {
  return { type: "image_url", image_url: { url: `data:image/png;base64,${Buffer.from(png).toString("base64")}` } };
}

export interface RequestOptions {
  model: string;
  server: ServerKind;
  profile: ModelProfile;
  /** One PNG per page, in page order. */
  pages: Uint8Array[];
  maxTokens: number;
  /** Stream the answer (server-sent events) to report progress while a page decodes. */
  stream: boolean;
}

/** The JSON body of one chat-completions request for `pages` (one page, or several for Unlimited-OCR). */
export function chatRequest(o: RequestOptions): Record<string, unknown> {
  const several = o.pages.length > 1;
  if (several && !o.profile.documentText) throw new Error(`${o.profile.family} reads one page per request`);
  const text = { type: "text", text: several ? o.profile.documentText! : o.profile.pageText };
  const images = o.pages.map(imagePart);
  const body: Record<string, unknown> = {
    model: o.model,
    messages: [{ role: "user", content: o.profile.imageFirst ? [...images, text] : [text, ...images] }],
    max_tokens: o.maxTokens,
    temperature: 0,
    // grounding tags (<|ref|>, <|det|>) are special tokens: dropping them would lose every box
    skip_special_tokens: false,
  };
  const ngram = o.profile.ngram;
  if (o.server === "sglang") {
    if (o.profile.imageMode) body.images_config = { image_mode: several ? o.profile.imageMode.document : o.profile.imageMode.page };
    if (ngram) {
      body.custom_logit_processor = SGLANG_NGRAM_PROCESSOR;
      body.custom_params = {
        ngram_size: ngram.size,
        window_size: several ? (ngram.documentLookback ?? ngram.lookback) : ngram.lookback,
        ...(ngram.whitelist ? { whitelist_token_ids: ngram.whitelist } : {}),
      };
    }
  } else if (o.server === "vllm" && ngram) {
    body.vllm_xargs = {
      ngram_size: ngram.size,
      window_size: several ? (ngram.documentLookback ?? ngram.lookback) : ngram.lookback,
      ...(ngram.whitelist ? { whitelist_token_ids: ngram.whitelist } : {}),
    };
  }
  if (o.stream) {
    body.stream = true;
    // the token count arrives in a last chunk (vLLM and SGLang both honour stream_options)
    body.stream_options = { include_usage: true };
  }
  return body;
}
