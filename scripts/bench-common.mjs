// Helpers the bench scripts share: command-line flags and PDF discovery.
import { readdirSync, statSync } from "node:fs";
import path from "node:path";

/** `--name` flags and `--name value` options over an argv (without node and the script). */
export function cliArgs(argv = process.argv.slice(2)) {
  const flag = (name) => argv.includes(name);
  const option = (name, fallback) => {
    const i = argv.indexOf(name);
    return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback;
  };
  const list = (s) => s.split(",").filter(Boolean).map(Number);
  return { argv, flag, option, list };
}

/** PDFs named by the inputs: files as given, folders expanded to their *.pdf in name order. */
export function pdfsIn(inputs) {
  return inputs.flatMap((p) =>
    statSync(p).isDirectory()
      ? readdirSync(p).filter((f) => f.endsWith(".pdf")).sort().map((f) => path.join(p, f))
      : [p],
  );
}
