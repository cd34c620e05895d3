// `ocr bench attention`: runs scripts/bench-attention.mjs (focal pruning and R-SWA against full attention, one run).
import { addOptions, optionsUnder } from "./options.js";
import { forwardOptions, registerBenchTarget, runBenchScript } from "./bench.js";

registerBenchTarget({
  name: "attention",
  description: "attention ms per decode step with focal pruning, and tokens/s + KV bytes of R-SWA vs full attention",
  register(command, context) {
    addOptions(command, optionsUnder("bench.attention.")).action((o: Record<string, unknown>) =>
      runBenchScript("bench-attention.mjs", forwardOptions(command, o), context),
    );
  },
});
