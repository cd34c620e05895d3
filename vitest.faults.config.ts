// Fault-injection suite (npm run test:faults): hostile PDFs and images, a tampered bundle, signals, a full disk
// and read-only outputs, each through the real CLI. Files are test/faults/*.fault.ts, so `npm test` (which
// takes *.test.ts) does not run them twice.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/faults/**/*.fault.ts"],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
