// `ocr bench parse`: runs scripts/bench-parse.mjs (ocr parse vs Tesseract 5: CER, word F1, s/page, peak RSS; scaling with page count);
// with --real, the real-document dev benchmark (bench/real: per-kind CER, word F1 and olmOCR-Bench-style unit tests).
import { addOptions, optionsUnder } from "./options.js";
import { forwardOptions, registerBenchTarget, runBenchScript } from "./bench.js";

registerBenchTarget({
  name: "parse",
  description: "ocr parse vs Tesseract 5 on documents with ground truth (CER, word F1, s/page, peak RSS) and memory vs page count",
  register(command, context) {
    addOptions(command, optionsUnder("bench.parse.")).action((o: Record<string, unknown>) =>
      runBenchScript("bench-parse.mjs", forwardOptions(command, o), context),
    );
  },
});
