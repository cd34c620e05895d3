// `ocr bench engine`: runs scripts/bench-engine.mjs (native decoder vs its bandwidth bound and onnxruntime-node).
import { registerBenchTarget, runBenchScript } from "./bench.js";

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
        const args: string[] = [];
        if (o.json) args.push("--json");
        if (o.threads) args.push("--threads", o.threads);
        if (o.prefixes) args.push("--prefixes", o.prefixes);
        if (o.decodeTokens) args.push("--decode-tokens", o.decodeTokens);
        if (o.skipLarge) args.push("--skip-large");
        if (o.skipOrt) args.push("--skip-ort");
        if (o.cache) args.push("--cache", o.cache);
        if (o.kernels) args.push("--kernels", o.kernels);
        await runBenchScript("bench-engine.mjs", args, context);
      });
  },
});
