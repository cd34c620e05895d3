// ocr bench <what> hands its options to the bench script under their long names.
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { forwardOptions } from "../../src/cli/bench.js";

describe("forwardOptions", () => {
  it("forwards switches that are on and every option with a value (defaults included), nothing else", () => {
    const command = new Command("x")
      .option("--json", "")
      .option("--skip-ort", "")
      .option("--max-tokens <n>", "", "4000")
      .option("--model <dir>", "")
      .option("--accuracy-keep <list>", "");
    command.parse(["--json", "--accuracy-keep", "0.05,0.5"], { from: "user" });
    expect(forwardOptions(command, command.opts())).toEqual(["--json", "--max-tokens", "4000", "--accuracy-keep", "0.05,0.5"]);
  });
});
