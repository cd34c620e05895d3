// Test runner settings: suites live in test/, mirroring src/.
// `npm test` runs everything a machine with only Node needs; the suites in TRAIN_TESTS need the training
// stack (PyTorch and numpy through /usr/bin/python3, system fonts, poppler; see scripts/ci-deps.sh) and run
// with `npm run test:train` (vitest.train.config.ts). The Python package's own tests (python/tests) run with pytest:
// `npm run test:python`.
import { defineConfig } from "vitest/config";

export const TRAIN_TESTS = [
  // PyTorch checkpoints converted and checked against the Python reference decoder
  "test/model/convert.test.ts",
  // positions past the trained context against the PyTorch reference decoder
  "test/model/positions.test.ts",
  // the synthetic document generator embeds system fonts (DejaVu, Liberation, Noto, CMU, Latin Modern, TeX Gyre)
  "test/synth/generator.test.ts",
  "test/synth/rasterise.test.ts",
];

export const settings = {
  testTimeout: 120_000,
  hookTimeout: 300_000,
  pool: "forks" as const,
  maxWorkers: 2,
};

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["**/node_modules/**", ...TRAIN_TESTS],
    ...settings,
  },
});
