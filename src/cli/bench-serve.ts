// `ocr bench serve`: runs scripts/bench-serve.mjs (pages/min of ocr parse --server against ocr serve on loopback, per --concurrency).
import { addOptions, optionsUnder } from "./options.js";
import { forwardOptions, registerBenchTarget, runBenchScript } from "./bench.js";

registerBenchTarget({
  name: "serve",
  description: "pages/min of ocr parse --server against ocr serve on 127.0.0.1 at --concurrency 1, 2, 4",
  register(command, context) {
    addOptions(command, optionsUnder("bench.serve.")).action((o: Record<string, unknown>) =>
      runBenchScript("bench-serve.mjs", forwardOptions(command, o), context),
    );
  },
});
