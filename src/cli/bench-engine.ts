// `ocr bench engine`: runs scripts/bench-engine.mjs (native decoder vs its bandwidth bound and onnxruntime-node).
import { forwardOptions, registerBenchTarget, runBenchScript } from "./bench.js";

registerBenchTarget({
  name: "engine",
  description: "decoder tokens/s (tiny and DeepSeek-OCR shape in bf16, q8_0 and q4_1) beside the memory-bandwidth bound and onnxruntime-node",
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
      .option("--quantized <list>", "DeepSeek-OCR-shape rows beside bf16: q8, q4, q8,q4 or none (copies made once by ocr models quantize's code)", "q8,q4")
      .action((o: Record<string, unknown>) => runBenchScript("bench-engine.mjs", forwardOptions(command, o), context));
  },
});
