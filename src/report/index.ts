// Public surface of src/report: pick a reporter for the terminal, logs, or pipelines.
import { createJsonlReporter } from "./jsonl.js";
import { createPlainReporter, type Verbosity } from "./plain.js";
import type { Reporter, TextSink } from "./reporter.js";
import { createTtyReporter, type TtyStream } from "./tty.js";

export { createJsonlReporter, createPlainReporter, createTtyReporter, type Reporter, type TextSink, type Verbosity };
export { formatError, formatSummary, formatWarning } from "./reporter.js";

export interface ReporterChoice {
  jsonl: boolean;
  verbosity: Verbosity;
  /** Where progress goes (stderr). */
  stderr: TtyStream;
  /** Where JSON Lines go when chosen (stdout, or stderr when stdout carries Markdown). */
  events: TextSink;
  env: NodeJS.ProcessEnv;
}

/** Progress bars only on an interactive stderr outside CI; JSON Lines when asked; else plain lines. */
export function chooseReporter(choice: ReporterChoice): Reporter {
  if (choice.jsonl) return createJsonlReporter(choice.events, choice.events === choice.stderr ? undefined : choice.stderr);
  const interactive = !!choice.stderr.isTTY && !choice.env.CI && choice.verbosity !== "quiet";
  if (interactive) return createTtyReporter(choice.stderr, choice.verbosity === "verbose");
  return createPlainReporter(choice.stderr, choice.verbosity);
}
