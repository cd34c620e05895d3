// `ocr serve`: our engine behind the OpenAI chat-completions API, on loopback unless --host says otherwise.
import { Option } from "commander";
import type { RunSettings } from "../app/settings.js";
import { defaultModelOptions } from "../engines/settings.js";
import { startServer } from "../serve/server.js";
import { buildOption, type OptionName } from "./options.js";
import { examples, registerCommand, type CommandContext } from "./registry.js";

interface ServeOptions {
  model?: string;
  mode?: string;
  maxTokens?: number;
  threads?: number;
  host: string;
  port: number;
  maxRequests: number;
  maxBodyMb: number;
  pagesPerRequest: number;
  maxPixels: number;
  quiet?: boolean;
}

const MODEL_OPTIONS: OptionName[] = ["model", "mode", "maxTokens", "threads", "maxPixels"];

function intIn(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
    return n;
  };
}

export async function serveAction(options: ServeOptions, context: CommandContext): Promise<void> {
  const model = defaultModelOptions();
  model.dir = options.model;
  model.mode = options.mode;
  model.maxTokens = options.maxTokens;
  model.threads = options.threads;
  const settings: RunSettings = { engine: "model", dpi: 150, maxPixels: options.maxPixels, pages: "all", formats: ["md"], model };
  const log = options.quiet ? undefined : (line: string) => void context.stderr.write(`ocr serve: ${line}\n`);
  const server = await startServer({
    settings,
    host: options.host,
    port: options.port,
    maxRequests: options.maxRequests,
    maxBodyBytes: options.maxBodyMb * 2 ** 20,
    pagesPerRequest: options.pagesPerRequest,
    apiKey: context.env.OCR_SERVER_API_KEY || undefined,
    log,
  });
  // the one line a supervisor (or a test) waits for; the port is the real one when --port 0 asked for any free port
  context.stderr.write(`ocr serve: listening on ${server.url} (POST /v1/chat/completions)\n`);
  await new Promise<void>((resolve) => {
    if (context.signal.aborted) resolve();
    else context.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  context.stderr.write("ocr serve: shutting down\n");
  await server.close();
  context.stderr.write("ocr serve: stopped\n");
}

registerCommand({
  name: "serve",
  order: 15,
  register(program, context) {
    const command = program.command("serve").description("serve the OCR model over the OpenAI chat-completions API (image in, Markdown out)");
    for (const name of MODEL_OPTIONS) command.addOption(buildOption(name));
    command
      .addOption(new Option("--host <address>", "address to listen on (loopback unless you open it up)").default("127.0.0.1"))
      .addOption(new Option("--port <n>", "port to listen on (0: any free port, printed at start)").default(8000).argParser(intIn("--port", 0, 65535)))
      .addOption(new Option("--max-requests <n>", "requests decoded at once; more are answered 429 with Retry-After").default(4).argParser(intIn("--max-requests", 1, 1024)))
      .addOption(new Option("--max-body-mb <n>", "largest request body in MiB; bigger ones are answered 413").default(64).argParser(intIn("--max-body-mb", 1, 4096)))
      .addOption(new Option("--pages-per-request <n>", "pages of a document ocr parse --server may send in one request (read in one pass, as a local run reads them)").default(8).argParser(intIn("--pages-per-request", 1, 64)))
      .addOption(buildOption("quiet"))
      .addHelpText(
        "after",
        examples([
          ["ocr serve --port 8000", "the default model on http://127.0.0.1:8000"],
          ["ocr parse scans/ --server http://127.0.0.1:8000", "parse against it (same results as a local run)"],
          ["OCR_SERVER_API_KEY=secret ocr serve --host 0.0.0.0", "open to the network, with a bearer key"],
        ]),
      )
      .action((options: ServeOptions) => serveAction(options, context));
  },
});
