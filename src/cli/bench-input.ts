// `ocr bench render` and `ocr bench text`: run scripts/bench-render.mjs (vs pdftoppm) and scripts/bench-text.mjs (vs pdftotext).
import { addOptions, optionsUnder } from "./options.js";
import { registerBenchTarget, runBenchScript } from "./bench.js";

registerBenchTarget({
  name: "render",
  description: "PDF rasterisation vs pdftoppm: mean absolute pixel difference and ms/page, side by side",
  register(command, context) {
    addOptions(
      command.argument("[pdfs...]", "PDFs or folders (default: ../shared/data/real/debian beside the checkout)"),
      optionsUnder("bench.render."),
    ).action((pdfs: string[], o: { dpi: string; pages: string }) =>
      runBenchScript("bench-render.mjs", ["--dpi", o.dpi, "--pages", o.pages, ...pdfs], context),
    );
  },
});

registerBenchTarget({
  name: "text",
  description: "--engine text vs pdftotext: character error rate per document and ms/page",
  register(command, context) {
    command
      .argument("[pdfs...]", "PDFs or folders (default: ../shared/data/real/debian beside the checkout)")
      .action((pdfs: string[]) => runBenchScript("bench-text.mjs", pdfs, context));
  },
});
