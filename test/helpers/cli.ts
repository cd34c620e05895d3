// Runs the real CLI (bin/ocr.js → dist/) as a child process and captures everything it does.
import { execa, type Options } from "execa";
import path from "node:path";
import { repoRoot } from "./paths.js";

export const bin = path.join(repoRoot, "bin/ocr.js");

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs `ocr ARGS`; CI is set so progress bars never draw, and nothing throws on a non-zero exit. */
export async function ocr(args: string[], options: Options = {}): Promise<CliResult> {
  const result = await execa(process.execPath, [bin, ...args], {
    reject: false,
    stripFinalNewline: false,
    env: { CI: "1", ...(options.env ?? {}) },
    ...options,
  });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}
