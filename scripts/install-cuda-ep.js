#!/usr/bin/env node
// GPU users: downloads onnxruntime-node's CUDA execution provider, which .npmrc skips so `npm ci` works offline.
// Usage: npm run install-cuda   (needs network access to onnxruntime's release binaries and a CUDA 12 runtime)
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
let installer;
try {
  installer = path.join(path.dirname(require.resolve("onnxruntime-node/package.json")), "script", "install.js");
} catch {
  console.error("install-cuda: onnxruntime-node is not installed; run `npm ci` first");
  process.exit(3);
}
// The environment variable outranks the npmrc "skip" (npm_config_onnxruntime_node_install).
const result = spawnSync(process.execPath, [installer], {
  stdio: "inherit",
  env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: process.env.ONNXRUNTIME_NODE_INSTALL ?? "cuda12" },
});
if (result.status !== 0) {
  console.error("install-cuda: the CUDA provider download failed (see above); the CPU provider keeps working");
  process.exit(result.status ?? 1);
}
console.error("install-cuda: CUDA execution provider installed");
