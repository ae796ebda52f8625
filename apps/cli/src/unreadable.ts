/**
 * Files and directories a batch command (`validate`, `migrate`, `stats`, `ls`) cannot read:
 * each is reported with its reason and left out, the rest is done, and the command exits
 * with {@link EXIT_UNREADABLE}. Use {@link unreadable} in a batch's `catch` to tell a file
 * that cannot be read (reported, skipped) from a bug (rethrown).
 */
import { CliError, EXIT_UNREADABLE } from "./errors.js";
import type { Io } from "./io.js";
import { oneLineField } from "./terminal-safe.js";

/** One item left out: its path, an errno-like code when there is one, and why (for people). */
export interface Unreadable {
  path: string;
  code: string | null;
  reason: string;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * The item `path` could not be read because of `error`, or undefined when `error` is not
 * about reading a file (then it is a bug, and the caller rethrows it).
 */
export function unreadable(path: string, error: unknown): Unreadable | undefined {
  const code = codeOf(error);
  if (code === undefined) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  let reason: string;
  if (error instanceof CliError)
    reason = message.startsWith(`${path}: `) ? message.slice(path.length + 2) : message;
  else if (typeof (error as { syscall?: unknown }).syscall === "string") {
    // Node's "EACCES: permission denied, open '/p'": the description, then the code.
    const described = /^[A-Z0-9_]+: ([^,]+)/.exec(message)?.[1];
    reason = described ? `${described} (${code})` : `${message} (${code})`;
  } else reason = message.endsWith(`: ${path}`) ? message.slice(0, -(path.length + 2)) : message;
  return { path, code, reason };
}

/** Sorts the items by path (in place, so `--json` lists them in that order too), warns about each on stderr. */
export function warnUnreadable(io: Io, items: Unreadable[]): void {
  items.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const item of items) io.warn(oneLineField(`${item.path}: cannot read: ${item.reason}; skipped`));
}

/** The exit code: {@link EXIT_UNREADABLE} when anything was skipped, else `otherwise`. */
export function exitCode(items: readonly Unreadable[], otherwise: number): number {
  return items.length > 0 ? EXIT_UNREADABLE : otherwise;
}
