/**
 * Errors the CLI reports, and the exit codes they map to.
 *
 * Commands throw these instead of calling `process.exit`, so the program has one place that
 * prints the message (to stderr) and picks the exit code: 0 ok, 1 findings or failure, 2 usage.
 */

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/**
 * A failure the user can act on: a one-line message (paths and arguments in it are shown on
 * that line, a `\n` in them included), lines of details (one line each), and optionally what
 * to do about it.
 */
export class CliError extends Error {
  readonly exitCode: number;
  readonly hint: string | undefined;
  readonly details: readonly string[];
  constructor(
    message: string,
    options: { exitCode?: number; hint?: string; details?: readonly string[] } = {},
  ) {
    super(message);
    this.name = "CliError";
    this.exitCode = options.exitCode ?? EXIT_FAILURE;
    this.hint = options.hint;
    this.details = options.details ?? [];
  }
}

/** Wrong arguments or options: exit code 2. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: EXIT_USAGE, hint: hint ?? "Run `pi-session --help` for usage." });
    this.name = "UsageError";
  }
}
