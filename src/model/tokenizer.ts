// Tokenizer of a bundle: loads its Hugging Face tokenizer.json (and tokenizer_config.json when present) with @lenml/tokenizers.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { TokenizerLoader } from "@lenml/tokenizers";
import { ModelFileError } from "./errors.js";

/** Special tokens DeepSeek-OCR adds after the DeepSeek-V3 vocabulary (ids 128815–128826). */
export const OCR_SPECIAL_TOKENS: readonly (readonly [string, number])[] = [
  ["<image>", 128815],
  ["<|ref|>", 128816],
  ["<|/ref|>", 128817],
  ["<|det|>", 128818],
  ["<|/det|>", 128819],
  ["<|grounding|>", 128820],
  ["<td>", 128821],
  ["</td>", 128822],
  ["<tr>", 128823],
  ["</tr>", 128824],
  ["<|User|>", 128825],
  ["<|Assistant|>", 128826],
];

interface AddedToken {
  id: number;
  content: string;
  single_word: boolean;
  lstrip: boolean;
  rstrip: boolean;
  normalized: boolean;
  special: boolean;
}

/** Returns a copy of a tokenizer.json with the OCR special tokens added (ids must be free or already equal). */
export function withOcrSpecialTokens(tokenizerJson: Record<string, unknown>): Record<string, unknown> {
  const added = [...((tokenizerJson.added_tokens as AddedToken[] | undefined) ?? [])];
  const byId = new Map(added.map((t) => [t.id, t]));
  for (const [content, id] of OCR_SPECIAL_TOKENS) {
    const existing = byId.get(id);
    if (existing) {
      if (existing.content !== content) throw new Error(`token id ${id} is already ${existing.content}, not ${content}`);
      continue;
    }
    added.push({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  }
  return { ...tokenizerJson, added_tokens: added };
}

type LoadedTokenizer = ReturnType<typeof TokenizerLoader.fromPreTrained>;

export class Tokenizer {
  private constructor(
    private readonly impl: LoadedTokenizer,
    private readonly vocab: Map<string, number>,
    readonly source: string,
  ) {}

  /** Builds a tokenizer from parsed tokenizer.json / tokenizer_config.json objects. */
  static fromJson(
    tokenizerJson: Record<string, unknown>,
    tokenizerConfig: Record<string, unknown> = {},
    source = "tokenizer.json",
  ): Tokenizer {
    let impl: LoadedTokenizer;
    try {
      impl = TokenizerLoader.fromPreTrained({ tokenizerJSON: tokenizerJson as never, tokenizerConfig: tokenizerConfig as never });
    } catch (err) {
      throw new ModelFileError(source, `cannot build a tokenizer (${(err as Error).message})`, { cause: err });
    }
    const vocab = new Map<string, number>();
    const model = tokenizerJson.model as { vocab?: Record<string, number> | [string, number][] } | undefined;
    if (model?.vocab && !Array.isArray(model.vocab)) for (const [k, v] of Object.entries(model.vocab)) vocab.set(k, v);
    for (const t of (tokenizerJson.added_tokens as AddedToken[] | undefined) ?? []) vocab.set(t.content, t.id);
    return new Tokenizer(impl, vocab, source);
  }

  /** Loads `tokenizer.json` (plus `tokenizer_config.json` beside it when present). */
  static async load(tokenizerJsonPath: string): Promise<Tokenizer> {
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(await readFile(tokenizerJsonPath, "utf8"));
    } catch (err) {
      throw new ModelFileError(tokenizerJsonPath, `cannot read tokenizer (${(err as Error).message})`, { cause: err });
    }
    if (typeof json !== "object" || json === null || typeof json.model !== "object")
      throw new ModelFileError(tokenizerJsonPath, "not a Hugging Face tokenizer.json (no model section)");
    let config: Record<string, unknown> = {};
    try {
      config = JSON.parse(await readFile(path.join(path.dirname(tokenizerJsonPath), "tokenizer_config.json"), "utf8"));
    } catch {
      // tokenizer_config.json is optional: without it the generic tokenizer class is used
    }
    return Tokenizer.fromJson(json, config, tokenizerJsonPath);
  }

  /** Text → ids, without BOS/EOS (the prompt builder adds those); special tokens in the text map to their ids. */
  encode(text: string): number[] {
    if (text.length === 0) return [];
    return this.impl.encode(text, { add_special_tokens: false });
  }

  /** Ids → text, special tokens kept (grounding tags are parsed downstream). */
  decode(ids: readonly number[]): string {
    if (ids.length === 0) return "";
    return this.impl.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  }

  /** Every id of the vocabulary and the added tokens. */
  ids(): number[] {
    return [...new Set(this.vocab.values())].sort((a, b) => a - b);
  }

  /** Id of a token string (vocabulary or added token), or undefined. */
  tokenId(token: string): number | undefined {
    return this.vocab.get(token);
  }
}
