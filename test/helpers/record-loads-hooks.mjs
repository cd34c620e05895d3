// Loader hooks of record-loads.mjs (they run on the loader's own thread).
import { appendFileSync } from "node:fs";

export async function load(url, context, next) {
  const result = await next(url, context);
  if (process.env.OCR_TEST_LOADS) appendFileSync(process.env.OCR_TEST_LOADS, `${url}\n`);
  return result;
}
