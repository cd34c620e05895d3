// CLI entry: builds the commander program from the registry and maps outcomes to exit codes.
import { Command, CommanderError } from "commander";
import { readFileSync, rmSync } from "node:fs";
import { ExitCode } from "../engines/errors.js";
import { removePendingTempFilesSync } from "../output/atomic.js";
import "./commands.js";
import { examples, registeredCommands, type CommandContext } from "./registry.js";

export { registerCommand, registeredCommands, examples, type CommandContext, type CommandDefinition } from "./registry.js";
export { registerBenchTarget, type BenchTarget } from "./bench.js";
export { OPTIONS, buildOption, type OptionName, type OptionSpec } from "./options.js";

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: string };
    return pkg.version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

export function buildProgram(context: CommandContext): Command {
  const program = new Command("ocr")
    .description("Parse PDFs and page images into Markdown and JSON with an OCR model")
    .version(packageVersion(), "-V, --version")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({
      writeOut: (s) => void context.stdout.write(s),
      writeErr: (s) => void context.stderr.write(s),
      outputError: (s, write) => write(s.startsWith("error:") ? `ocr: ${s}` : s),
    })
    .exitOverride()
    .addHelpText(
      "after",
      examples([
        ["ocr parse report.pdf", "Markdown + JSON in ./ocr-out"],
        ["ocr parse docs/ -o out --jobs 2", "a folder tree, two documents at a time"],
        ["ocr render report.pdf -o pages/", "the page images the model sees"],
        ["ocr info report.pdf --json", "pages, sizes, text layer, metadata"],
      ]),
    );
  for (const definition of registeredCommands()) definition.register(program, context);
  // Sub-commands inherit output and exit handling.
  for (const command of program.commands) {
    command.exitOverride().configureOutput(program.configureOutput());
    for (const sub of command.commands) sub.exitOverride().configureOutput(program.configureOutput());
  }
  return program;
}

/** Errors raised by the app that carry their own exit code (UsageError 2, EnvironmentError 3). */
function exitCodeOf(error: unknown): number | undefined {
  const code = (error as { exitCode?: unknown })?.exitCode;
  return typeof code === "number" ? code : undefined;
}

/** Runs the CLI and resolves to the exit status; never calls process.exit itself. */
export async function main(argv: string[], context: CommandContext): Promise<number> {
  const program = buildProgram(context);
  try {
    await program.parseAsync(argv, { from: "user" });
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version "errors" are successful exits.
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.exitCode === 0) {
        return ExitCode.ok;
      }
      if (error.code === "commander.help") return ExitCode.ok;
      return ExitCode.usage;
    }
    const code = exitCodeOf(error);
    context.stderr.write(`ocr: ${(error as Error).message ?? String(error)}\n`);
    if (code !== undefined) return code;
    // Anything unexpected is a bug; show where it came from.
    context.stderr.write(`${(error as Error).stack ?? ""}\n`);
    return 70;
  }
}

/** Exit status of a run stopped by a signal: 128 + the signal's number, as a shell reports it. */
export const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGPIPE: 141, SIGTERM: 143 };

/**
 * Runs against the real process: stdio, environment, Ctrl-C. Used by bin/ocr.js.
 * The first SIGINT or SIGTERM aborts the run (the page in progress stops, finished documents are kept);
 * a second one says so and removes temp files, and the run still ends the same way: process.exit while a
 * vision worker is inside onnxruntime aborts natively, so the exit waits until every worker and native
 * session is closed (the current inference step, well under a second on CPU).
 */
export async function run(argv = process.argv.slice(2)): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  let exitSignal: string | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts++;
    if (interrupts === 1) {
      exitSignal = signal;
      process.stderr.write(
        signal === "SIGINT"
          ? "\nocr: interrupted; stopping the current page and cleaning up (Ctrl-C again to quit now)\n"
          : `\nocr: ${signal}: stopping the current page and cleaning up\n`,
      );
      controller.abort({ signal, exitCode: SIGNAL_EXIT[signal] ?? 130 });
    } else {
      // Quitting now: writes in flight must not leave their temporary files behind.
      removePendingTempFilesSync(rmSync);
      if (interrupts === 2) process.stderr.write("ocr: quitting as soon as the model's threads are closed\n");
      // a native call that never returns must not hold the process forever
      setTimeout(() => process.exit(SIGNAL_EXIT[exitSignal!] ?? 130), 10_000).unref();
    }
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // A reader that stops early (`ocr parse doc.pdf --stdout | head`, `ocr --help | head -3`) closes the pipe: Node
  // then fails the next write with EPIPE, which unhandled ends in a stack trace. Instead the run stops as a shell
  // tool stopped by SIGPIPE does, quietly and with 141 (128 + 13), after its cleanup; a pipe that closes after
  // the work is done changes nothing.
  let pipeClosed = false;
  let finished = false;
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    if (pipeClosed || finished) return;
    pipeClosed = true;
    controller.abort({ signal: "SIGPIPE", exitCode: SIGNAL_EXIT.SIGPIPE });
  });
  const context: CommandContext = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signal: controller.signal,
    exitCode: 0,
  };
  const code = await main(argv, context);
  finished = true;
  process.exitCode = pipeClosed ? SIGNAL_EXIT.SIGPIPE : controller.signal.aborted ? (SIGNAL_EXIT[exitSignal ?? "SIGINT"] ?? 130) : code;
}
