// Every command's options come from one table (src/cli/options.ts): no command declares its own, help lists them all,
// and bench options reach their scripts as the user gave them.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { type Command, Command as Program } from "commander";
import { describe, expect, it } from "vitest";
import { forwardOptions } from "../../src/cli/bench.js";
import { buildProgram, main, type CommandContext } from "../../src/cli/index.js";
import { addOptions, OPTIONS, type OptionName, type OptionSpec, optionsUnder } from "../../src/cli/options.js";
import { repoRoot } from "../helpers/paths.js";

function context(): CommandContext & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (c) => (out += c));
  stderr.on("data", (c) => (err += c));
  return {
    stdout,
    stderr,
    stdin: new PassThrough(),
    env: {},
    signal: new AbortController().signal,
    exitCode: 0,
    out: () => out,
    err: () => err,
  };
}

function commandsOf(command: Command, prefix = ""): [string, Command][] {
  return command.commands.flatMap((sub) => {
    const name = `${prefix}${sub.name()}`;
    return [[name, sub] as [string, Command], ...commandsOf(sub, `${name} `)];
  });
}

const specs = Object.entries(OPTIONS) as [OptionName, OptionSpec][];

describe("the option table", () => {
  it("is the only place under src/cli that declares an option", () => {
    const dir = path.join(repoRoot, "src/cli");
    const offenders: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const text = readFileSync(path.join(dir, file), "utf8");
      for (const pattern of [/\.option\(/, /\.requiredOption\(/, /new Option\(/]) {
        // options.ts builds commander Options from the table: that is the one allowed `new Option(`
        if (pattern.test(text) && !(file === "options.ts" && pattern.source === "new Option\\("))
          offenders.push(`${file}: ${pattern.source}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("supplies every option of every command, and each command's help lists them", () => {
    const program = buildProgram(context());
    const commands = commandsOf(program);
    expect(commands.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        "parse",
        "serve",
        "render",
        "info",
        "bench parse",
        "bench decoder",
        "bench attention",
        "bench render",
        "bench serve",
        "models pull",
        "models convert",
        "models quantize",
        "models list",
        "models info",
      ]),
    );
    const used = new Set<OptionName>();
    let checked = 0;
    for (const [name, command] of commands) {
      const help = command.helpInformation();
      for (const option of command.options) {
        const same = specs.filter(([, s]) => s.flags === option.flags && s.description === option.description);
        expect(same.length, `ocr ${name} ${option.flags} is not in OPTIONS`).toBeGreaterThan(0);
        for (const [spec] of same) used.add(spec);
        expect(help, `ocr ${name} --help`).toContain(option.flags);
        expect(help, `ocr ${name} --help`).toContain(option.description.slice(0, 40));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
    // and no entry of the table is dead
    expect(specs.map(([n]) => n).filter((n) => !used.has(n))).toEqual([]);
  });

  it("keeps the defaults and required options each command documents", () => {
    const program = buildProgram(context());
    const find = (path: string) => commandsOf(program).find(([n]) => n === path)![1];
    const option = (path: string, long: string) => find(path).options.find((o) => o.long === long)!;
    expect(option("bench decoder", "--kernels").defaultValue).toBe("auto");
    expect(option("bench attention", "--keeps").defaultValue).toBe("1,0.2,0.1,0.05,0.02");
    // no cap of its own: ocr parse applies the model's, as a user gets it (a 4,000 cap cut four dense dev pages)
    expect(option("bench parse", "--max-tokens").defaultValue).toBeUndefined();
    expect(option("models pull", "--revision").defaultValue).toBe("main");
    expect(option("models quantize", "--out").mandatory).toBe(true);
    expect(option("render", "--output-dir").mandatory).toBe(true);
    expect(option("serve", "--port").defaultValue).toBe(8000);
  });

  it("still accepts `ocr bench engine`, the decoder benchmark's former name", () => {
    const program = buildProgram(context());
    const bench = program.commands.find((c) => c.name() === "bench")!;
    const decoder = bench.commands.find((c) => c.name() === "decoder")!;
    expect(decoder.aliases()).toEqual(["engine"]);
    expect(decoder.helpInformation()).toContain("Usage: ocr bench decoder|engine");
  });

  it("forwards bench options under their long names, defaults included", () => {
    const command = addOptions(new Program("x"), optionsUnder("bench.parse."));
    command.parse(["--real", "--limit", "3", "--json"], { from: "user" });
    expect(forwardOptions(command, command.opts())).toEqual([
      "--real",
      "--json",
      "--limit",
      "3",
      "--docs",
      "6",
      "--scale-pages",
      "100",
      "--scale-max-tokens",
      "64",
      "--threads",
      "1",
    ]);
  });

  it("rejects a bad models value before doing anything, naming the option", async () => {
    for (const [argv, message] of [
      [["models", "convert", "some/repo", "--family", "bogus"], /--family must be deepseek-ocr or unlimited-ocr, not bogus/],
      [["models", "convert", "some/repo", "--mode", "huge"], /--mode must be tiny, small, base, large or gundam, not huge/],
      [["models", "quantize", "some/bundle", "--out", "x", "--to", "q5"], /--to must be q8 or q4, not q5/],
      [["serve", "--port", "70000"], /--port must be an integer from 0 to 65535, got "70000"/],
    ] as [string[], RegExp][]) {
      const ctx = context();
      expect(await main(argv, ctx), argv.join(" ")).toBe(2);
      expect(ctx.err()).toMatch(message);
    }
  });
});
