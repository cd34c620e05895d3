// Command registry: each command file registers itself; adding a command is one import in commands.ts.
import type { Command } from "commander";
import type { Readable, Writable } from "node:stream";

/** Side effects a command may use, behind a seam so tests can drive them. */
export interface CommandContext {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  stdin: Readable;
  env: NodeJS.ProcessEnv;
  /** Aborted on the first Ctrl-C: stop starting work, finish or discard what is in flight. */
  signal: AbortSignal;
  /** The process exit status the command wants (0 unless set). */
  exitCode: number;
}

export interface CommandDefinition {
  name: string;
  /** Sort key for --help; lower first. */
  order: number;
  /** Adds the command (with its options and action) to the program. */
  register(program: Command, context: CommandContext): void;
}

const commands = new Map<string, CommandDefinition>();

export function registerCommand(definition: CommandDefinition): void {
  if (commands.has(definition.name)) throw new Error(`command "${definition.name}" registered twice`);
  commands.set(definition.name, definition);
}

export function registeredCommands(): CommandDefinition[] {
  return [...commands.values()].sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
}

/** Formats "Examples:" help text from [command line, what it does] pairs. */
export function examples(pairs: [string, string][]): string {
  const width = Math.max(...pairs.map(([cmd]) => cmd.length));
  return "\nExamples:\n" + pairs.map(([cmd, what]) => `  $ ${cmd.padEnd(width)}  # ${what}`).join("\n") + "\n";
}
