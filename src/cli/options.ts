// Every command-line option, declared once as data: flags, help, validation, default.
import { InvalidArgumentError, Option } from "commander";
import { parsePageSelection } from "../input/index.js";
import { parseShard } from "../app/shard.js";

export interface OptionSpec {
  /** commander flags, e.g. "-o, --output-dir <dir>". */
  flags: string;
  description: string;
  /** Converts and validates the raw string; throw Error with a readable message to reject it. */
  parse?: (value: string, previous: unknown) => unknown;
  defaultValue?: unknown;
  /** Shown in help instead of the default value itself. */
  defaultDescription?: string;
  choices?: readonly string[];
  /** Environment variable that supplies the value when the flag is absent. */
  env?: string;
}

function integer(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new Error(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
    }
    return n;
  };
}

function ratio(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || n > 1) throw new Error(`${name} must be a number in (0, 1], got "${value}"`);
    return n;
  };
}

function list(name: string, allowed: readonly string[]) {
  return (value: string): string[] => {
    const items = value.split(",").map((s) => s.trim()).filter(Boolean);
    const bad = items.filter((s) => !allowed.includes(s));
    if (items.length === 0 || bad.length > 0) {
      throw new Error(`${name} takes a comma list of ${allowed.join(", ")}; got "${value}"`);
    }
    return [...new Set(items)];
  };
}

function collect(value: string, previous: unknown): string[] {
  return [...((previous as string[] | undefined) ?? []), value];
}

/** Output formats a parse run can write. */
export const OUTPUT_FORMATS = ["md", "json"] as const;

export const OPTIONS = {
  // ---- input selection
  include: {
    flags: "--include <glob>",
    description: "only documents matching this glob inside folders (repeatable)",
    parse: collect,
  },
  exclude: {
    flags: "--exclude <glob>",
    description: "skip documents matching this glob inside folders (repeatable)",
    parse: collect,
  },
  filesFrom: {
    flags: "--files-from <file>",
    description: 'read input paths from FILE, one a line ("-" = stdin)',
  },
  pages: {
    flags: "--pages <list>",
    description: "pages to process, 1-based: 1-3,7,10-",
    parse: (v: string) => parsePageSelection(v),
  },
  password: {
    flags: "--password <password>",
    description: "password for encrypted PDFs",
    env: "OCR_PDF_PASSWORD",
  },
  dpi: {
    flags: "--dpi <n>",
    description: "resolution PDF pages are rendered at",
    parse: integer("--dpi", 18, 1200),
    defaultValue: 150,
  },
  maxPixels: {
    flags: "--max-pixels <n>",
    description: "pixel cap per page; larger pages are scaled down with a warning",
    parse: integer("--max-pixels", 1, 1_000_000_000),
    defaultValue: 50_000_000,
  },
  pageTimeout: {
    flags: "--page-timeout <seconds>",
    description: "time budget of each PDF step (opening, reading or rendering one page); a document over it fails and the batch goes on",
    parse: integer("--page-timeout", 1, 86_400),
    defaultValue: 60,
  },
  // ---- output
  outputDir: {
    flags: "-o, --output-dir <dir>",
    description: "folder for results; mirrors the input folders",
    defaultValue: "ocr-out",
    defaultDescription: "./ocr-out",
  },
  renderOutputDir: {
    flags: "-o, --output-dir <dir>",
    description: "folder for page-NNNN.png files (required)",
  },
  format: {
    flags: "--format <list>",
    description: "output formats, comma separated: md,json",
    parse: list("--format", OUTPUT_FORMATS),
    defaultValue: ["md", "json"],
    defaultDescription: "md,json",
  },
  stdout: {
    flags: "--stdout",
    description: "write the Markdown of a single document to stdout instead of files",
  },
  resume: {
    flags: "--resume",
    description: "skip documents whose outputs are up to date for the same settings and model",
  },
  json: {
    flags: "--json",
    description: "print JSON instead of text",
  },
  keepHeaders: {
    flags: "--keep-headers",
    description: "keep running headers, footers and page numbers in the Markdown (they are always in the JSON, with their role)",
  },
  tables: {
    flags: "--tables <style>",
    description: "how tables are written: html (balanced HTML, spans kept) or markdown (pipe tables where no cell spans)",
    choices: ["html", "markdown"],
    defaultValue: "html",
  },
  // ---- engine and model
  engine: {
    flags: "--engine <name>",
    description: "page decoder: model (the OCR model) or text (the PDF's own text layer)",
    defaultValue: "model",
  },
  model: {
    flags: "--model <dir>",
    description: "model bundle folder, or a model from `ocr models list` (e.g. deepseek-ai/DeepSeek-OCR)",
    env: "OCR_MODEL",
    defaultDescription: "models/default",
  },
  mode: {
    flags: "--mode <name>",
    description: "preprocessing mode defined by the model bundle (DeepSeek-OCR family: tiny, small, base, large, gundam; see ocr models info)",
  },
  maxTokens: {
    flags: "--max-tokens <n>",
    description: "stop decoding a page after this many tokens (the page is marked truncated; default: the model's max_tokens_per_page)",
    parse: integer("--max-tokens", 1, 1_000_000),
  },
  threads: {
    flags: "--threads <n>",
    description: "CPU threads for encoder and decoder",
    parse: integer("--threads", 1, 1024),
  },
  readingOrder: {
    flags: "--reading-order <order>",
    description: "reading order of a page's detected lines: learned (the model's, default when it has one) or xy-cut",
    choices: ["learned", "xy-cut"],
  },
  attention: {
    flags: "--attention <kind>",
    description: "decoder attention: full or rswa (sliding window over generated text)",
    choices: ["full", "rswa"],
  },
  window: {
    flags: "--window <n>",
    description: "R-SWA window in generated tokens (implies --attention rswa; default: the model's)",
    parse: integer("--window", 1, 1_000_000),
  },
  focalKeep: {
    flags: "--focal-keep <ratio>",
    description: "share of visual tokens each decode step attends to, in (0, 1]; any --focal-* option turns focal pruning on (defaults 0.05, 2 layers, 8 warm-up steps unless the model sets them)",
    parse: ratio("--focal-keep"),
  },
  focalLayers: {
    flags: "--focal-layers <k>",
    description: "number of focal layers K, chosen during the warm-up by their attention share on visual tokens",
    parse: integer("--focal-layers", 1, 1024),
  },
  focalWarmup: {
    flags: "--focal-warmup <n>",
    description: "decode steps of full attention at the start of each page or line view before focal pruning (the first ones also choose the focal layers)",
    parse: integer("--focal-warmup", 1, 1_000_000),
  },
  noFocal: {
    flags: "--no-focal",
    description: "disable focal pruning",
  },
  fixations: {
    flags: "--fixations <file>",
    description: "write, per decode step, the visual grid cells focal pruning kept (JSON Lines) to FILE",
  },
  overlayFixations: {
    flags: "--fixations <file>",
    description: "draw the fixations `ocr parse --fixations FILE` recorded over each page (where the model looked)",
  },
  // ---- scale-out: a serving engine, many machines
  shard: {
    flags: "--shard <k/n>",
    description: "take shard K of N of the documents (stable, by a hash of each path below its input root); with --resume, N machines split a batch",
    parse: (value: string) => parseShard(value),
  },
  server: {
    flags: "--server <url>",
    description: "decode pages on an OpenAI-compatible server (vLLM or SGLang serving DeepSeek-OCR or Unlimited-OCR, or `ocr serve`), e.g. http://gpu1:8000",
  },
  serverModel: {
    flags: "--server-model <name>",
    description: "model name the server serves (default: the first one its /v1/models lists)",
  },
  concurrency: {
    flags: "--concurrency <n>",
    description: "with --server: requests in flight across pages and documents",
    parse: integer("--concurrency", 1, 1024),
    defaultValue: 4,
  },
  serverTimeout: {
    flags: "--server-timeout <seconds>",
    description: "with --server: time one request may take before it is retried",
    parse: integer("--server-timeout", 1, 86_400),
    defaultValue: 600,
  },
  serverRetries: {
    flags: "--server-retries <n>",
    description: "with --server: retries of a page after connection errors, timeouts, 429 and 5xx (backoff with jitter, Retry-After honoured)",
    parse: integer("--server-retries", 0, 100),
    defaultValue: 5,
  },
  overlayLayout: {
    flags: "--layout [file]",
    description: "draw the blocks, their roles and reading order over each page: from FILE (an `ocr parse` NAME.json), or without FILE by parsing the pages with --engine first",
  },
  // ---- running and reporting
  jobs: {
    flags: "-j, --jobs <n>",
    description: "documents processed at once",
    parse: integer("--jobs", 1, 256),
    defaultValue: 1,
  },
  jsonl: {
    flags: "--jsonl",
    description: "print every event (pages, tokens/s, warnings, summary) as JSON Lines on stdout (on stderr with --stdout)",
  },
  quiet: {
    flags: "-q, --quiet",
    description: "print only errors",
  },
  verbose: {
    flags: "-v, --verbose",
    description: "print per-page details and warnings as they happen",
  },
} satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTIONS;

/** Builds commander Option objects for the named specs; the same data drives parsing and help. */
export function buildOption(name: OptionName): Option {
  const spec: OptionSpec = OPTIONS[name];
  const option = new Option(spec.flags, spec.description);
  if (spec.choices) option.choices(spec.choices);
  if (spec.parse) {
    const parse = spec.parse;
    option.argParser((value: string, previous: unknown) => {
      try {
        return parse(value, previous);
      } catch (error) {
        throw new InvalidArgumentError((error as Error).message);
      }
    });
  }
  if (spec.defaultValue !== undefined) option.default(spec.defaultValue, spec.defaultDescription);
  else if (spec.defaultDescription) option.default(undefined, spec.defaultDescription);
  if (spec.env) option.env(spec.env);
  return option;
}
