// `ocr bench attention`: runs scripts/bench-attention.mjs (focal pruning and R-SWA against full attention, one run).
import { forwardOptions, registerBenchTarget, runBenchScript } from "./bench.js";

registerBenchTarget({
  name: "attention",
  description: "attention ms per decode step with focal pruning, and tokens/s + KV bytes of R-SWA vs full attention",
  register(command, context) {
    command
      .option("--json", "print one JSON object with `focal`, `window` (and `accuracy`) rows")
      .option("--threads <n>", "worker threads (default 2)")
      .option("--visual <list>", "visual token counts", "273,1000,2473,8000")
      .option("--keeps <list>", "focal keep ratios", "1,0.2,0.1,0.05,0.02")
      .option("--steps <n>", "timed decode steps per focal row and round", "8")
      .option("--rounds <n>", "rounds of full and every keep in turn; each figure is the median over them", "3")
      .option("--focal-layers <n>", "focal layers", "2")
      .option("--warmup <n>", "focal warm-up steps", "4")
      .option("--lengths <list>", "output lengths for the R-SWA rows", "256,2048,8192,16384")
      .option("--window <n>", "R-SWA window", "128")
      .option("--skip-focal", "without the focal rows")
      .option("--skip-window", "without the R-SWA rows")
      .option("--skip-accuracy", "without the accuracy rows (the default model reading pages unpruned and pruned)")
      .option("--accuracy-keep <list>", "keep ratios of the accuracy rows", "0.05")
      .option("--accuracy-pages <n>", "synthetic test pages read (real pages: half as many, at least one)", "4")
      .option("--synth <dir>", "synthetic test set for the accuracy rows (default $OCR_DATA/synth/test, skipped without either)")
      .option("--real <dir>", "real PDFs for the accuracy rows (default: ../shared/data/real/debian beside the checkout)")
      .option("--model <dir>", "model bundle for the accuracy rows (default models/default)")
      .option("--cache <dir>", "where the generated benchmark models live (default ~/.cache/ocr/bench)")
      .action((o: Record<string, unknown>) => runBenchScript("bench-attention.mjs", forwardOptions(command, o), context));
  },
});
