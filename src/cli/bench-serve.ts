// `ocr bench serve`: runs scripts/bench-serve.mjs (pages/min of ocr parse --server against ocr serve on loopback, per --concurrency).
import { forwardOptions, registerBenchTarget, runBenchScript } from "./bench.js";

registerBenchTarget({
  name: "serve",
  description: "pages/min of ocr parse --server against ocr serve on 127.0.0.1 at --concurrency 1, 2, 4",
  register(command, context) {
    command
      .option("--json", "print one JSON object")
      .option("--doc <file>", "document to parse (default fixtures/docs/multi_page.pdf)")
      .option("--pages <list>", "pages parsed per run", "1-4")
      .option("--concurrency <list>", "concurrency levels, comma separated", "1,2,4")
      .option("--model <dir>", "model bundle the server loads (default models/default)")
      .option("--threads <n>", "the server's CPU threads")
      .option("--max-tokens <n>", "the server's per-page token cap")
      .action((o: Record<string, unknown>) => runBenchScript("bench-serve.mjs", forwardOptions(command, o), context));
  },
});
