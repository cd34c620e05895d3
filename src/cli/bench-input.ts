// `ocr bench render` and `ocr bench text`: run scripts/bench-render.mjs (vs pdftoppm) and scripts/bench-text.mjs (vs pdftotext).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { registerBenchTarget } from "./bench.js";
import type { CommandContext } from "./registry.js";

const scripts = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../scripts");

async function runScript(name: string, args: string[], context: CommandContext): Promise<void> {
  const script = path.join(scripts, name);
  if (!existsSync(script)) {
    context.stderr.write(`ocr: ${script} is missing (the benchmark ships with the source tree)\n`);
    context.exitCode = 3;
    return;
  }
  const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"], env: context.env });
  child.stdout.pipe(context.stdout, { end: false });
  child.stderr.pipe(context.stderr, { end: false });
  const onAbort = () => child.kill("SIGINT");
  context.signal.addEventListener("abort", onAbort, { once: true });
  context.exitCode = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
  context.signal.removeEventListener("abort", onAbort);
}

registerBenchTarget({
  name: "render",
  description: "PDF rasterisation vs pdftoppm: mean absolute pixel difference and ms/page, side by side",
  register(command, context) {
    command
      .argument("[pdfs...]", "PDFs or folders (default: ../shared/data/real/debian beside the checkout)")
      .option("--dpi <n>", "resolution", "150")
      .option("--pages <n>", "first N pages of each PDF", "8")
      .action((pdfs: string[], o: { dpi: string; pages: string }) =>
        runScript("bench-render.mjs", ["--dpi", o.dpi, "--pages", o.pages, ...pdfs], context),
      );
  },
});

registerBenchTarget({
  name: "text",
  description: "--engine text vs pdftotext: character error rate per document and ms/page",
  register(command, context) {
    command
      .argument("[pdfs...]", "PDFs or folders (default: ../shared/data/real/debian beside the checkout)")
      .action((pdfs: string[]) => runScript("bench-text.mjs", pdfs, context));
  },
});
