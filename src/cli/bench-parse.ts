// `ocr bench parse`: runs scripts/bench-parse.mjs (ocr parse vs Tesseract 5: CER, word F1, s/page, peak RSS; scaling with page count).
import { forwardOptions, registerBenchTarget, runBenchScript } from "./bench.js";

registerBenchTarget({
  name: "parse",
  description: "ocr parse vs Tesseract 5 on documents with ground truth (CER, word F1, s/page, peak RSS) and memory vs page count",
  register(command, context) {
    command
      .option("--json", "print one JSON object (documents, overall, scaling)")
      .option("--synth <dir>", "synthetic test set (doc-N.pdf + doc-N.json)", "/work/data/synth/test")
      .option("--real <dir>", "real documents (debian/, docling/; default: ../shared/data/real beside the checkout)")
      .option("--docs <n>", "synthetic documents to use", "6")
      .option("--max-tokens <n>", "our per-page token cap", "4000")
      .option("--scale-pages <n>", "pages of the scaling document", "100")
      .option("--scale-max-tokens <n>", "per-page token cap in the scaling pass", "64")
      .option("--threads <n>", "our CPU threads", "1")
      .option("--model <dir>", "model bundle (default models/default)")
      .option("--skip-tesseract", "without the Tesseract baseline")
      .option("--skip-scale", "without the page-count scaling pass")
      .option("--skip-quality", "only the scaling pass")
      .option("--from <file>", "print the tables of an earlier --json run")
      .action((o: Record<string, unknown>) => runBenchScript("bench-parse.mjs", forwardOptions(command, o), context));
  },
});
