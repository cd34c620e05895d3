// `ocr bench parse`: runs scripts/bench-parse.mjs (ocr parse vs Tesseract 5: CER, word F1, s/page, peak RSS; scaling with page count);
// with --real, the real-document dev benchmark (bench/real: per-kind CER, word F1 and olmOCR-Bench-style unit tests).
import { forwardOptions, registerBenchTarget, runBenchScript } from "./bench.js";

registerBenchTarget({
  name: "parse",
  description: "ocr parse vs Tesseract 5 on documents with ground truth (CER, word F1, s/page, peak RSS) and memory vs page count",
  register(command, context) {
    command
      .option("--real", "the real-document dev benchmark (bench/real: 70 pages of 10 kinds, unit tests) instead of the synthetic one")
      .option("--json [file]", "write one JSON object (everything, per page and per test) to FILE, or print it")
      .option("--kinds <list>", "--real: only pages of these kinds (comma separated, e.g. multicol,table)")
      .option("--limit <n>", "--real: only the first N pages")
      .option("--keep <dir>", "--real: keep the page images and both engines' outputs in DIR")
      .option("--reuse", "--real: with --keep, reuse the images and outputs already in DIR (re-score after editing tests)")
      .option("--synth <dir>", "synthetic test set (doc-N.pdf + doc-N.json; default $OCR_DATA/synth/test, skipped without either)")
      .option("--shared <dir>", "the shared real documents (debian/, docling/, funsd/, pubtabnet/; default: ../shared/data/real beside the checkout)")
      .option("--docs <n>", "synthetic documents to use", "6")
      .option("--max-tokens <n>", "our per-page token cap", "4000")
      .option("--scale-pages <n>", "pages of the scaling document", "100")
      .option("--scale-max-tokens <n>", "per-page token cap in the scaling pass", "64")
      .option("--threads <n>", "our CPU threads", "1")
      .option("--model <dir>", "model bundle (default models/default)")
      .option("--skip-tesseract", "without the Tesseract baseline")
      .option("--compare-order", "--real: also read every page with --reading-order xy-cut and print both layout stages side by side")
      .option("--done-only", "--real: with --keep, only the pages our earlier run finished")
      .option("--skip-ours", "--real: without running ocr parse (outputs of an earlier --keep run are still scored with --reuse)")
      .option("--skip-scale", "without the page-count scaling pass")
      .option("--skip-quality", "only the scaling pass")
      .option("--from <file>", "print the tables of an earlier --json run")
      .action((o: Record<string, unknown>) => runBenchScript("bench-parse.mjs", forwardOptions(command, o), context));
  },
});
