#!/usr/bin/env node
// Launcher: checks the Node version before loading anything that needs a newer runtime, then runs the CLI.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`ocr: Node.js ${process.versions.node} is too old; ocr needs Node.js 20.19 or newer\n`);
  process.exit(3);
}
let cli;
try {
  cli = await import("../dist/cli/index.js");
} catch (error) {
  if (error && error.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist")) {
    process.stderr.write("ocr: the compiled CLI is missing (dist/); run `npm run build` first\n");
    process.exit(3);
  }
  throw error;
}
await cli.run();
