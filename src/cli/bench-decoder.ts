// `ocr bench decoder` (formerly `ocr bench engine`, still accepted): runs scripts/bench-decoder.mjs (native decoder vs
// its bandwidth bound and onnxruntime-node).
import { addOptions, optionsUnder } from "./options.js";
import { forwardOptions, registerBenchTarget, runBenchScript } from "./bench.js";

registerBenchTarget({
  name: "decoder",
  aliases: ["engine"],
  description:
    "decoder tokens/s (tiny and DeepSeek-OCR shape in bf16, q8_0 and q4_1) beside the memory-bandwidth bound and onnxruntime-node",
  register(command, context) {
    addOptions(command, optionsUnder("bench.decoder.")).action((o: Record<string, unknown>) =>
      runBenchScript("bench-decoder.mjs", forwardOptions(command, o), context),
    );
  },
});
