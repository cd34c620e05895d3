// `ocr bench <what>`: a command group; other parts add their benchmarks with registerBenchTarget.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { registerCommand, type CommandContext } from "./registry.js";

const scripts = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../scripts");

/** Runs scripts/NAME in a child Node process, forwarding its output, Ctrl-C and exit code. */
export async function runBenchScript(name: string, args: string[], context: CommandContext): Promise<void> {
  const script = path.join(scripts, name);
  if (!existsSync(script)) {
    context.stderr.write(`ocr: ${script} is missing (the benchmark ships with the source tree)\n`);
    context.exitCode = 3;
    return;
  }
  const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"], env: context.env });
  child.stdout.pipe(context.stdout, { end: false });
  child.stderr.pipe(context.stderr, { end: false });
  const onAbort = () => child.kill("SIGINT");
  context.signal.addEventListener("abort", onAbort, { once: true });
  context.exitCode = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
  context.signal.removeEventListener("abort", onAbort);
}

/**
 * The command line a bench script gets from its sub-command: every option that has a value, under its long
 * name (`--flag` for switches that are on, `--name value` otherwise), so a wrapper never lists them twice.
 */
export function forwardOptions(command: Command, values: Record<string, unknown>): string[] {
  const args: string[] = [];
  for (const option of command.options) {
    const value = values[option.attributeName()];
    if (value === undefined || value === false || !option.long) continue;
    if (value === true) args.push(option.long);
    else args.push(option.long, String(value));
  }
  return args;
}

export interface BenchTarget {
  name: string;
  /** Former names, still accepted on the command line. */
  aliases?: string[];
  description: string;
  /** Adds options and the action to the `ocr bench <name>` sub-command. */
  register(command: Command, context: CommandContext): void;
}

const targets = new Map<string, BenchTarget>();

export function registerBenchTarget(target: BenchTarget): void {
  if (targets.has(target.name)) throw new Error(`bench target "${target.name}" registered twice`);
  targets.set(target.name, target);
}

export function registeredBenchTargets(): BenchTarget[] {
  return [...targets.values()].sort((a, b) => a.name.localeCompare(b.name));
}

registerCommand({
  name: "bench",
  order: 50,
  register(program, context) {
    const group = program.command("bench").description("benchmarks that print our figures beside their baselines").addHelpCommand(false);
    for (const target of registeredBenchTargets()) {
      const command = group.command(target.name).description(target.description);
      if (target.aliases) command.aliases(target.aliases);
      target.register(command, context);
    }
    group.action(() => {
      // Reached only without a sub-command: listing what exists is more useful than an error.
      const names = registeredBenchTargets().map((t) => `  ${t.name.padEnd(12)} ${t.description}`);
      context.stderr.write(names.length ? `available benchmarks:\n${names.join("\n")}\n` : "no benchmarks are registered in this build\n");
      context.exitCode = 2;
    });
  },
});
