/**
 * Errors the CLI reports, and the exit codes they map to.
 *
 * Commands throw these instead of calling `process.exit`, so the program has one place that
 * prints the message (to stderr) and picks the exit code: 0 ok, 1 findings or failure, 2 usage,
 * 3 a batch skipped files or directories it could not read (and did the rest).
 */

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** A batch (validate, migrate, stats, ls) could not read some items, reported each, did the rest. */
export const EXIT_UNREADABLE = 3;

/**
 * A failure the user can act on: a one-line message (paths and arguments in it are shown on
 * that line, a `\n` in them included), lines of details (one line each), and optionally what
 * to do about it.
 */
export class CliError extends Error {
  readonly exitCode: number;
  readonly hint: string | undefined;
  readonly details: readonly string[];
  /** For a file that cannot be read: an errno-like code (`ENOENT`, `EISDIR`, `ENOTREG`). */
  readonly code: string | undefined;
  constructor(
    message: string,
    options: { exitCode?: number; hint?: string; details?: readonly string[]; code?: string } = {},
  ) {
    super(message);
    this.name = "CliError";
    this.exitCode = options.exitCode ?? EXIT_FAILURE;
    this.hint = options.hint;
    this.details = options.details ?? [];
    this.code = options.code;
  }
}

/** Wrong arguments or options: exit code 2. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: EXIT_USAGE, hint: hint ?? "Run `pi-session --help` for usage." });
    this.name = "UsageError";
  }
}
