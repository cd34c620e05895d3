// `npm run test:train`: the suites that need the training stack (scripts/ci-deps.sh installs it); see vitest.config.ts.
import { defineConfig } from "vitest/config";
import { settings, TRAIN_TESTS } from "./vitest.config.js";

export default defineConfig({
  test: {
    include: TRAIN_TESTS,
    globalSetup: ["test/helpers/train-stack.ts"],
    ...settings,
  },
});
