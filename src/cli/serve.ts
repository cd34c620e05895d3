// `ocr serve`: our engine behind the OpenAI chat-completions API, on loopback unless --host says otherwise.
import type { RunSettings } from "../app/settings.js";
import { defaultModelOptions } from "../engines/settings.js";
import { startServer } from "../serve/server.js";
import { addOptions, optionsUnder, type OptionName } from "./options.js";
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
    const command = program
      .command("serve")
      .description("serve the OCR model over the OpenAI chat-completions API (image in, Markdown out)");
    addOptions(command, [...MODEL_OPTIONS, ...optionsUnder("serve."), "quiet"])
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
