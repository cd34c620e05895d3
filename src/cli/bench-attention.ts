// `ocr bench attention`: runs scripts/bench-attention.mjs (focal pruning and R-SWA against full attention, one run).
import { registerBenchTarget, runBenchScript } from "./bench.js";

interface BenchAttentionOptions {
  json?: boolean;
  threads?: string;
  visual?: string;
  keeps?: string;
  steps?: string;
  focalLayers?: string;
  warmup?: string;
  lengths?: string;
  window?: string;
  skipFocal?: boolean;
  skipWindow?: boolean;
  accuracy?: string;
  cache?: string;
}

registerBenchTarget({
  name: "attention",
  description: "attention ms per decode step with focal pruning, and tokens/s + KV bytes of R-SWA vs full attention",
  register(command, context) {
    command
      .option("--json", "print one JSON object with `focal`, `window` (and `accuracy`) rows")
      .option("--threads <n>", "worker threads (default 2)")
      .option("--visual <list>", "visual token counts", "273,1000,2473,8000")
      .option("--keeps <list>", "focal keep ratios", "1,0.2,0.1,0.05,0.02")
      .option("--steps <n>", "timed decode steps per focal row", "8")
      .option("--focal-layers <n>", "focal layers", "2")
      .option("--warmup <n>", "focal warm-up steps", "4")
      .option("--lengths <list>", "output lengths for the R-SWA rows", "256,2048,8192,16384")
      .option("--window <n>", "R-SWA window", "128")
      .option("--skip-focal", "without the focal rows")
      .option("--skip-window", "without the R-SWA rows")
      .option("--accuracy <file>", "JSON {cerUnpruned, cerFocal, keep} from a CER run to print beside the timings")
      .option("--cache <dir>", "where the generated benchmark models live (default ~/.cache/ocr/bench)")
      .action(async (o: BenchAttentionOptions) => {
        const args: string[] = [];
        if (o.json) args.push("--json");
        if (o.skipFocal) args.push("--skip-focal");
        if (o.skipWindow) args.push("--skip-window");
        for (const [flag, v] of [["--threads", o.threads], ["--visual", o.visual], ["--keeps", o.keeps], ["--steps", o.steps],
          ["--focal-layers", o.focalLayers], ["--warmup", o.warmup], ["--lengths", o.lengths], ["--window", o.window],
          ["--accuracy", o.accuracy], ["--cache", o.cache]] as const)
          if (v) args.push(flag, v);
        await runBenchScript("bench-attention.mjs", args, context);
      });
  },
});
