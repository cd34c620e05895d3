// Error classes that map to the CLI's exit-code taxonomy (2 usage, 3 environment).

/** Exit codes: 0 all done, 1 some documents failed (the rest completed), 2 usage, 3 environment. */
export const ExitCode = {
  ok: 0,
  someFailed: 1,
  usage: 2,
  environment: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Bad command line or configuration: nothing was attempted. */
export class UsageError extends Error {
  readonly exitCode = ExitCode.usage;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UsageError";
  }
}

/** The machine lacks something the run needs (model, native addon, device): nothing can succeed. */
export class EnvironmentError extends Error {
  readonly exitCode = ExitCode.environment;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EnvironmentError";
  }
}
