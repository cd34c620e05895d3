// `ocr bench engine`: runs scripts/bench-engine.mjs (native decoder vs its bandwidth bound and onnxruntime-node).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { registerBenchTarget } from "./bench.js";

const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../scripts/bench-engine.mjs");

interface BenchEngineOptions {
  json?: boolean;
  threads?: string;
  prefixes?: string;
  decodeTokens?: string;
  skipLarge?: boolean;
  skipOrt?: boolean;
  cache?: string;
  kernels?: string;
}

registerBenchTarget({
  name: "engine",
  description: "decoder tokens/s (tiny and DeepSeek-OCR shape) beside the memory-bandwidth bound and onnxruntime-node",
  register(command, context) {
    command
      .option("--json", "print one JSON object with a `rows` array")
      .option("--threads <n>", "worker threads for both engines (default: the cores)")
      .option("--prefixes <list>", "prefix lengths", "273,1024,4096")
      .option("--decode-tokens <n>", "timed decode steps per row", "32")
      .option("--skip-large", "only the tiny model (skips the ~6 GB DeepSeek-OCR-shape decoder)")
      .option("--skip-ort", "without the onnxruntime-node baseline")
      .option("--cache <dir>", "where generated benchmark models live (default ~/.cache/ocr/bench)")
      .option("--kernels <set>", "kernel set of our engine: auto, avx2, avx512 or avx512bf16", "auto")
      .action(async (o: BenchEngineOptions) => {
        if (!existsSync(script)) {
          context.stderr.write(`ocr: ${script} is missing (the benchmark ships with the source tree)\n`);
          context.exitCode = 3;
          return;
        }
        const args = [script];
        if (o.json) args.push("--json");
        if (o.threads) args.push("--threads", o.threads);
        if (o.prefixes) args.push("--prefixes", o.prefixes);
        if (o.decodeTokens) args.push("--decode-tokens", o.decodeTokens);
        if (o.skipLarge) args.push("--skip-large");
        if (o.skipOrt) args.push("--skip-ort");
        if (o.cache) args.push("--cache", o.cache);
        if (o.kernels) args.push("--kernels", o.kernels);
        const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: context.env });
        child.stdout.pipe(context.stdout, { end: false });
        child.stderr.pipe(context.stderr, { end: false });
        const onAbort = () => child.kill("SIGINT");
        context.signal.addEventListener("abort", onAbort, { once: true });
        const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
        context.signal.removeEventListener("abort", onAbort);
        context.exitCode = code;
      });
  },
});
