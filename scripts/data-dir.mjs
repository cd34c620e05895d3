// Data that lives outside the repository (synthetic pages, the corpus, extracted Debian packages) has no built-in
// location: an option that names such a folder is given, or defaults to a folder under $OCR_DATA when that variable
// is set (README.md, "Data folders"). The Python tools follow the same rule (python/ocr_tools/paths.py).
import path from "node:path";

/** $OCR_DATA/parts…, or undefined when OCR_DATA is unset or empty. */
export function dataDefault(...parts) {
  const base = process.env.OCR_DATA;
  return base ? path.join(base, ...parts) : undefined;
}

/** `value`, or exits with status 2 and a message naming the option and OCR_DATA when there is none. */
export function requireData(value, option, ...parts) {
  if (value) return value;
  process.stderr.write(
    `${option} is required: pass ${option} PATH, or set OCR_DATA to the data folder (${option} is then ${path.join("$OCR_DATA", ...parts)})\n`,
  );
  process.exit(2);
}
