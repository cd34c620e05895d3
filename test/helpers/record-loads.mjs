// `node --import ./test/helpers/record-loads.mjs …`: appends the URL of every module the process loads (through
// the ESM loader, which also sees packages imported from ESM) to the file named by $OCR_TEST_LOADS.
import { register } from "node:module";

register(new URL("./record-loads-hooks.mjs", import.meta.url));
