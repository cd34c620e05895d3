// `ocr parse`: the main job — documents in, Markdown and JSON out.
import { readFileSync } from "node:fs";
import { runBatch, readPathList } from "../app/run.js";
import type { RunSettings } from "../app/settings.js";
import { defaultModelOptions } from "../engines/settings.js";
import type { OutputFormat } from "../output/paths.js";
import { UsageError } from "../engines/errors.js";
import type { Shard } from "../app/shard.js";
import { formatPageSelection, parsePathList, type PageRange } from "../input/index.js";
import { chooseReporter } from "../report/index.js";
import { addOptions, type OptionName } from "./options.js";
import { examples, registerCommand, type CommandContext } from "./registry.js";

export interface ParseOptions {
  include?: string[];
  exclude?: string[];
  filesFrom?: string;
  pages?: PageRange[];
  password?: string;
  pageTimeout: number;
  dpi: number;
  maxPixels: number;
  outputDir: string;
  format: OutputFormat[];
  stdout?: boolean;
  resume?: boolean;
  engine: string;
  model?: string;
  mode?: string;
  maxTokens?: number;
  threads?: number;
  attention?: "full" | "rswa";
  readingOrder?: "xy-cut" | "learned";
  window?: number;
  focalKeep?: number;
  focalLayers?: number;
  focalWarmup?: number;
  focal: boolean;
  fixations?: string;
  keepHeaders?: boolean;
  tables: "html" | "markdown";
  jobs?: number;
  shard?: Shard;
  server?: string;
  serverModel?: string;
  concurrency: number;
  serverTimeout: number;
  serverRetries: number;
  jsonl?: boolean;
  quiet?: boolean;
  verbose?: boolean;
}

/** Options of `ocr parse`, in help order. */
export const PARSE_OPTIONS: OptionName[] = [
  "outputDir",
  "format",
  "stdout",
  "resume",
  "keepHeaders",
  "tables",
  "pages",
  "dpi",
  "password",
  "include",
  "exclude",
  "filesFrom",
  "engine",
  "model",
  "mode",
  "maxTokens",
  "threads",
  "readingOrder",
  "attention",
  "window",
  "focalKeep",
  "focalLayers",
  "focalWarmup",
  "noFocal",
  "fixations",
  "maxPixels",
  "pageTimeout",
  "jobs",
  "shard",
  "server",
  "serverModel",
  "concurrency",
  "serverTimeout",
  "serverRetries",
  "jsonl",
  "quiet",
  "verbose",
];

export function settingsFromOptions(options: ParseOptions, env: NodeJS.ProcessEnv = {}): RunSettings {
  const model = defaultModelOptions();
  model.dir = options.model;
  model.mode = options.mode;
  model.maxTokens = options.maxTokens;
  model.threads = options.threads;
  model.attention = options.attention;
  model.readingOrder = options.readingOrder;
  model.window = options.window;
  model.focal = {
    enabled: options.focal !== false,
    keep: options.focalKeep,
    layers: options.focalLayers,
    warmup: options.focalWarmup,
  };
  model.fixationsFile = options.fixations;
  if (options.server && options.engine !== "model" && options.engine !== "server") {
    throw new UsageError(`--server decodes with the server's model; it cannot be combined with --engine ${options.engine}`);
  }
  return {
    engine: options.server ? "server" : options.engine,
    ...(options.server
      ? {
          server: {
            url: options.server,
            model: options.serverModel,
            concurrency: options.concurrency ?? 4,
            timeoutMs: (options.serverTimeout ?? 600) * 1000,
            retries: options.serverRetries ?? 5,
            apiKey: env.OCR_SERVER_API_KEY || undefined,
          },
        }
      : {}),
    dpi: options.dpi,
    maxPixels: options.maxPixels,
    pages: formatPageSelection(options.pages),
    formats: options.format,
    model,
    layout: { keepHeaders: !!options.keepHeaders, tables: options.tables ?? "html" },
  };
}

function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer | string) => chunks.push(typeof c === "string" ? Buffer.from(c) : c));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    return "0.0.0";
  }
}

export async function parseAction(inputs: string[], options: ParseOptions, context: CommandContext): Promise<void> {
  if (options.quiet && options.verbose) throw new UsageError("--quiet and --verbose contradict each other");
  // the model options are checked and merged with the bundle's defaults once, in engines/model/options.ts
  if (options.serverModel !== undefined && !options.server) throw new UsageError("--server-model needs --server URL");
  let stdinTaken = false;
  const readStdin = () => {
    if (stdinTaken) throw new UsageError('stdin can feed either "-" or --files-from -, not both');
    stdinTaken = true;
    return readAll(context.stdin);
  };
  const all = [...inputs];
  if (options.filesFrom) all.push(...parsePathList(await readPathList(options.filesFrom, readStdin)));
  if (all.length === 0) throw new UsageError("no inputs: give files, folders, glob patterns, --files-from FILE, or -");
  if (all.includes("-") && stdinTaken) throw new UsageError('stdin can feed either "-" or --files-from -, not both');

  const settings = settingsFromOptions(options, context.env);
  const reporter = chooseReporter({
    jsonl: !!options.jsonl,
    verbosity: options.quiet ? "quiet" : options.verbose ? "verbose" : "normal",
    stderr: context.stderr,
    // With --stdout the Markdown owns stdout, so events move to stderr.
    events: options.stdout ? context.stderr : context.stdout,
    env: context.env,
  });
  try {
    const summary = await runBatch({
      inputs: all,
      include: options.include,
      exclude: options.exclude,
      cwd: process.cwd(),
      settings,
      pageRanges: options.pages,
      password: options.password,
      pageTimeoutMs: options.pageTimeout * 1000,
      outputDir: options.stdout ? null : options.outputDir,
      resume: !!options.resume,
      shard: options.shard,
      // pages decode on the server: documents in flight are bounded by --concurrency, not by this machine's memory
      jobs: options.server ? Math.max(options.jobs ?? 1, options.concurrency) : options.jobs,
      readStdin,
      writeMarkdown: options.stdout ? (markdown) => void context.stdout.write(markdown) : undefined,
      emit: (event) => reporter.handle(event),
      signal: context.signal,
      version: packageVersion(),
      processStartMs: performance.now(),
    });
    context.exitCode = summary.exitCode;
  } finally {
    reporter.close();
  }
}

registerCommand({
  name: "parse",
  order: 10,
  register(program, context) {
    const command = program
      .command("parse")
      .description("parse documents into Markdown and JSON (the main job)")
      .argument("[inputs...]", 'files, folders (recursive), glob patterns, or "-" for one document on stdin');
    addOptions(command, PARSE_OPTIONS)
      .addHelpText(
        "after",
        examples([
          ["ocr parse report.pdf", "writes ocr-out/report.md and ocr-out/report.json"],
          ["ocr parse scans/ -o out --include '**/*.pdf'", "a folder tree, mirrored under out/"],
          ["ocr parse 'inbox/*.png' --format md", "a glob (quoted), Markdown only"],
          ["find . -name '*.pdf' | ocr parse --files-from -", "paths from another program"],
          ["curl -s URL | ocr parse - --stdout > page.md", "one document through a pipe"],
          ["ocr parse docs/ --engine text --resume", "text layer only; skip up-to-date outputs"],
          ["ocr parse big.pdf --pages 1-3,10- --jsonl", "selected pages, JSON Lines events"],
        ]),
      )
      .action((inputs: string[], options: ParseOptions) => parseAction(inputs, options, context));
  },
});
