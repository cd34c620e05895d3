// Every command-line option, declared once as data: flags, help, validation, default.
import { type Command, InvalidArgumentError, Option } from "commander";
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
  /** The command fails without it. */
  mandatory?: boolean;
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
    const items = value
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = items.filter((s) => !allowed.includes(s));
    if (items.length === 0 || bad.length > 0) {
      throw new Error(`${name} takes a comma list of ${allowed.join(", ")}; got "${value}"`);
    }
    return [...new Set(items)];
  };
}

/** One of a fixed set, checked by the command itself (help text lists them; commander's choices would add a line). */
function oneOf(name: string, allowed: readonly string[]) {
  const spelled = allowed.length > 1 ? `${allowed.slice(0, -1).join(", ")} or ${allowed[allowed.length - 1]}` : allowed[0];
  return (value: string): string => {
    if (!allowed.includes(value)) throw new Error(`${name} must be ${spelled}, not ${value}`);
    return value;
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
    mandatory: true,
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
    description: "page engine: model (the OCR model), text (the PDF's own text layer) or server (with --server URL)",
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
    description:
      "preprocessing mode defined by the model bundle (DeepSeek-OCR family: tiny, small, base, large, gundam; see ocr models info)",
  },
  maxTokens: {
    flags: "--max-tokens <n>",
    description: "stop decoding a page after this many tokens (the page is marked truncated; default: the model's max_tokens_per_page)",
    parse: integer("--max-tokens", 1, 1_000_000),
  },
  threads: {
    flags: "--threads <n>",
    description: "CPU threads (default: the cores); several documents are read at once, a thread each, unless --jobs is given",
    parse: integer("--threads", 1, 1024),
  },
  readingOrder: {
    flags: "--reading-order <order>",
    description: "reading order of a page's detected lines: xy-cut (default) or learned (the model's, where it has one)",
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
    description:
      "share of visual tokens each decode step attends to, in (0, 1]; any --focal-* option turns focal pruning on (defaults 0.05, 2 layers, 8 warm-up steps unless the model sets them)",
    parse: ratio("--focal-keep"),
  },
  focalLayers: {
    flags: "--focal-layers <k>",
    description: "number of focal layers K, chosen during the warm-up by their attention share on visual tokens",
    parse: integer("--focal-layers", 1, 1024),
  },
  focalWarmup: {
    flags: "--focal-warmup <n>",
    description:
      "decode steps of full attention at the start of each page or line view before focal pruning (the first ones also choose the focal layers)",
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
  // ---- scale-out: an OCR server, many machines
  shard: {
    flags: "--shard <k/n>",
    description:
      "take shard K of N of the documents (stable, by a hash of each path below its input root); with --resume, N machines split a batch",
    parse: (value: string) => parseShard(value),
  },
  server: {
    flags: "--server <url>",
    description:
      "decode pages on an OpenAI-compatible server (vLLM or SGLang serving DeepSeek-OCR or Unlimited-OCR, or `ocr serve`), e.g. http://gpu1:8000",
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
    description:
      "with --server: retries of a page after connection errors, timeouts, 429 and 5xx (backoff with jitter, Retry-After honoured)",
    parse: integer("--server-retries", 0, 100),
    defaultValue: 5,
  },
  overlayLayout: {
    flags: "--layout [file]",
    description:
      "draw the blocks, their roles and reading order over each page: from FILE (an `ocr parse` NAME.json), or without FILE by parsing the pages with --engine first",
  },
  // ---- running and reporting
  jobs: {
    flags: "-j, --jobs <n>",
    description:
      "documents processed at once (default model: one per --threads thread, or per core, and one more, when the inputs name several; else 1)",
    parse: integer("--jobs", 1, 256),
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
  // ---- ocr serve
  "serve.host": {
    flags: "--host <address>",
    description: "address to listen on (loopback unless you open it up)",
    defaultValue: "127.0.0.1",
  },
  "serve.port": {
    flags: "--port <n>",
    description: "port to listen on (0: any free port, printed at start)",
    parse: integer("--port", 0, 65535),
    defaultValue: 8000,
  },
  "serve.maxRequests": {
    flags: "--max-requests <n>",
    description: "requests decoded at once; more are answered 429 with Retry-After",
    parse: integer("--max-requests", 1, 1024),
    defaultValue: 4,
  },
  "serve.maxBodyMb": {
    flags: "--max-body-mb <n>",
    description: "largest request body in MiB; bigger ones are answered 413",
    parse: integer("--max-body-mb", 1, 4096),
    defaultValue: 64,
  },
  "serve.pagesPerRequest": {
    flags: "--pages-per-request <n>",
    description: "pages of a document ocr parse --server may send in one request (read in one pass, as a local run reads them)",
    parse: integer("--pages-per-request", 1, 64),
    defaultValue: 8,
  },
  // ---- ocr models <sub-command>
  "models.pull.revision": { flags: "--revision <rev>", description: "branch, tag or commit", defaultValue: "main" },
  "models.convert.out": {
    flags: "--out <dir>",
    description: "write the bundle here (weights linked, not copied) instead of into the checkpoint folder",
  },
  "models.convert.name": { flags: "--name <name>", description: "model name shown in outputs" },
  "models.convert.family": {
    flags: "--family <family>",
    description: "deepseek-ocr or unlimited-ocr (default: from config.json's sliding window)",
    parse: oneOf("--family", ["deepseek-ocr", "unlimited-ocr"]),
  },
  "models.convert.mode": {
    flags: "--mode <mode>",
    description: "default preprocessing mode: tiny, small, base, large or gundam",
    parse: oneOf("--mode", ["tiny", "small", "base", "large", "gundam"]),
  },
  "models.convert.force": { flags: "--force", description: "re-export encoder.onnx even if present" },
  "models.quantize.out": {
    flags: "--out <dir>",
    description: "write the quantised bundle here (other files of the bundle are linked)",
    mandatory: true,
  },
  "models.quantize.to": { flags: "--to <format>", description: "q8 or q4", parse: oneOf("--to", ["q8", "q4"]), defaultValue: "q8" },
  "models.list.json": { flags: "--json", description: "print JSON" },
  "models.info.json": { flags: "--json", description: "print JSON" },
  // ---- ocr bench <target>: values go to scripts/bench-*.mjs as given (forwardOptions), which check them
  "bench.attention.json": { flags: "--json", description: "print one JSON object with `focal`, `window` (and `accuracy`) rows" },
  "bench.attention.threads": { flags: "--threads <n>", description: "worker threads (default 2)" },
  "bench.attention.visual": { flags: "--visual <list>", description: "visual token counts", defaultValue: "273,1000,2473,8000" },
  "bench.attention.keeps": { flags: "--keeps <list>", description: "focal keep ratios", defaultValue: "1,0.2,0.1,0.05,0.02" },
  "bench.attention.steps": { flags: "--steps <n>", description: "timed decode steps per focal row and round", defaultValue: "8" },
  "bench.attention.rounds": {
    flags: "--rounds <n>",
    description: "rounds of full and every keep in turn; each figure is the median over them",
    defaultValue: "3",
  },
  "bench.attention.focalLayers": { flags: "--focal-layers <n>", description: "focal layers", defaultValue: "2" },
  "bench.attention.warmup": { flags: "--warmup <n>", description: "focal warm-up steps", defaultValue: "4" },
  "bench.attention.lengths": {
    flags: "--lengths <list>",
    description: "output lengths for the R-SWA rows",
    defaultValue: "256,2048,8192,16384",
  },
  "bench.attention.window": { flags: "--window <n>", description: "R-SWA window", defaultValue: "128" },
  "bench.attention.skipFocal": { flags: "--skip-focal", description: "without the focal rows" },
  "bench.attention.skipWindow": { flags: "--skip-window", description: "without the R-SWA rows" },
  "bench.attention.skipAccuracy": {
    flags: "--skip-accuracy",
    description: "without the accuracy rows (the default model reading pages unpruned and pruned)",
  },
  "bench.attention.accuracyKeep": {
    flags: "--accuracy-keep <list>",
    description: "keep ratios of the accuracy rows",
    defaultValue: "0.05",
  },
  "bench.attention.accuracyPages": {
    flags: "--accuracy-pages <n>",
    description: "synthetic test pages read (real pages: half as many, at least one)",
    defaultValue: "4",
  },
  "bench.attention.synth": {
    flags: "--synth <dir>",
    description: "synthetic test set for the accuracy rows (default $OCR_DATA/synth/test, skipped without either)",
  },
  "bench.attention.real": {
    flags: "--real <dir>",
    description: "real PDFs for the accuracy rows (default: ../shared/data/real/debian beside the checkout)",
  },
  "bench.attention.model": { flags: "--model <dir>", description: "model bundle for the accuracy rows (default models/default)" },
  "bench.attention.cache": {
    flags: "--cache <dir>",
    description: "where the generated benchmark decoders live (default ~/.cache/ocr/bench)",
  },
  "bench.decoder.json": { flags: "--json", description: "print one JSON object with a `rows` array" },
  "bench.decoder.threads": { flags: "--threads <n>", description: "worker threads for both runtimes (default: the cores)" },
  "bench.decoder.prefixes": { flags: "--prefixes <list>", description: "prefix lengths", defaultValue: "273,1024,4096" },
  "bench.decoder.decodeTokens": { flags: "--decode-tokens <n>", description: "timed decode steps per row", defaultValue: "32" },
  "bench.decoder.skipLarge": {
    flags: "--skip-large",
    description: "only the tiny decoder (skips the ~6 GB DeepSeek-OCR-shape one)",
  },
  "bench.decoder.skipOrt": { flags: "--skip-ort", description: "without the onnxruntime-node baseline" },
  "bench.decoder.cache": { flags: "--cache <dir>", description: "where generated benchmark decoders live (default ~/.cache/ocr/bench)" },
  "bench.decoder.kernels": {
    flags: "--kernels <set>",
    description: "kernel set of our decoder: auto, avx2, avx512 or avx512bf16",
    defaultValue: "auto",
  },
  "bench.decoder.quantized": {
    flags: "--quantized <list>",
    description: "DeepSeek-OCR-shape rows beside bf16: q8, q4, q8,q4 or none (copies made once by ocr models quantize's code)",
    defaultValue: "q8,q4",
  },
  "bench.render.dpi": { flags: "--dpi <n>", description: "resolution", defaultValue: "150" },
  "bench.render.pages": { flags: "--pages <n>", description: "first N pages of each PDF", defaultValue: "8" },
  "bench.parse.real": {
    flags: "--real",
    description: "the real-document dev benchmark (bench/real: 70 pages of 10 kinds, unit tests) instead of the synthetic one",
  },
  "bench.parse.json": {
    flags: "--json [file]",
    description: "write one JSON object (everything, per page and per test) to FILE, or print it",
  },
  "bench.parse.kinds": {
    flags: "--kinds <list>",
    description: "--real: only pages of these kinds (comma separated, e.g. multicol,table)",
  },
  "bench.parse.limit": { flags: "--limit <n>", description: "--real: only the first N pages" },
  "bench.parse.keep": { flags: "--keep <dir>", description: "--real: keep the page images and both our and Tesseract's outputs in DIR" },
  "bench.parse.reuse": {
    flags: "--reuse",
    description: "--real: with --keep, reuse the images and outputs already in DIR (re-score after editing tests)",
  },
  "bench.parse.synth": {
    flags: "--synth <dir>",
    description: "synthetic test set (doc-N.pdf + doc-N.json; default $OCR_DATA/synth/test, skipped without either)",
  },
  "bench.parse.shared": {
    flags: "--shared <dir>",
    description: "the shared real documents (debian/, docling/, funsd/, pubtabnet/; default: ../shared/data/real beside the checkout)",
  },
  "bench.parse.docs": { flags: "--docs <n>", description: "synthetic documents to use", defaultValue: "6" },
  "bench.parse.maxTokens": {
    flags: "--max-tokens <n>",
    description: "our per-page token cap (default: the model's, as ocr parse uses it)",
  },
  "bench.parse.scalePages": { flags: "--scale-pages <n>", description: "pages of the scaling document", defaultValue: "100" },
  "bench.parse.scaleMaxTokens": {
    flags: "--scale-max-tokens <n>",
    description: "per-page token cap in the scaling pass",
    defaultValue: "64",
  },
  "bench.parse.threads": { flags: "--threads <n>", description: "our CPU threads", defaultValue: "1" },
  "bench.parse.model": { flags: "--model <dir>", description: "model bundle (default models/default)" },
  "bench.parse.skipTesseract": { flags: "--skip-tesseract", description: "without the Tesseract baseline" },
  "bench.parse.compareOrder": {
    flags: "--compare-order",
    description: "--real: also read every page with --reading-order learned and print both layout stages side by side",
  },
  "bench.parse.doneOnly": { flags: "--done-only", description: "--real: with --keep, only the pages our earlier run finished" },
  "bench.parse.skipOurs": {
    flags: "--skip-ours",
    description: "--real: without running ocr parse (outputs of an earlier --keep run are still scored with --reuse)",
  },
  "bench.parse.skipScale": { flags: "--skip-scale", description: "without the page-count scaling pass" },
  "bench.parse.skipQuality": { flags: "--skip-quality", description: "only the scaling pass" },
  "bench.parse.from": { flags: "--from <file>", description: "print the tables of an earlier --json run" },
  "bench.serve.json": { flags: "--json", description: "print one JSON object" },
  "bench.serve.doc": { flags: "--doc <file>", description: "document to parse (default fixtures/docs/multi_page.pdf)" },
  "bench.serve.pages": { flags: "--pages <list>", description: "pages parsed per run", defaultValue: "1-4" },
  "bench.serve.concurrency": {
    flags: "--concurrency <list>",
    description: "concurrency levels, comma separated",
    defaultValue: "1,2,4",
  },
  "bench.serve.model": { flags: "--model <dir>", description: "model bundle the server loads (default models/default)" },
  "bench.serve.threads": { flags: "--threads <n>", description: "the server's CPU threads" },
  "bench.serve.maxTokens": { flags: "--max-tokens <n>", description: "the server's per-page token cap" },
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
  if (spec.mandatory) option.makeOptionMandatory();
  return option;
}

/** Names of the table's entries under PREFIX ("bench.decoder." …), in the order they are declared. */
export function optionsUnder(prefix: string): OptionName[] {
  return (Object.keys(OPTIONS) as OptionName[]).filter((name) => name.startsWith(prefix));
}

/**
 * Adds the named table entries to COMMAND, in order: the one way a command gets its options (no file under
 * src/cli declares one itself; test/cli/options.test.ts checks).
 */
export function addOptions(command: Command, names: readonly OptionName[]): Command {
  for (const name of names) command.addOption(buildOption(name));
  return command;
}
