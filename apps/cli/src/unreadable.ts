/**
 * Files a command leaves out, and why: those it cannot read (each reported with its reason,
 * the rest done, exit {@link EXIT_UNREADABLE}) and those that are no sessions (empty, binary,
 * another program's `.jsonl`: reported, exit unchanged). {@link warnSkipped} is the one place
 * that prints them and their count line ("3 files skipped: 2 not sessions, 1 unreadable
 * (permission denied)"), for every command that lists or walks files (`ls`, `stats`,
 * `validate`, `migrate`, `repair`). Use {@link unreadable} in a batch's `catch` to tell a file
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

/**
 * An entry left out because it holds no session: `empty` (0 bytes), `not a session` (no
 * header: binary, another program's `.jsonl`) or `not a regular file` (a directory, FIFO,
 * socket or device named `*.jsonl`, never opened).
 */
export interface NotSession {
  path: string;
  kind: "empty" | "not a session" | "not a regular file";
}

const NOT_SESSION_TEXT: Record<NotSession["kind"], string> = {
  empty: "empty file",
  "not a session": "not a pi session (no header)",
  "not a regular file": "not a regular file",
};

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** What an unreadable item counts as in the count line: `permission denied` for `EACCES`. */
function shortReason(item: Unreadable): string {
  if (item.code === "EACCES" || item.code === "EPERM") return "permission denied";
  // A name the directory lists but nothing answers to: a link that leads nowhere, or a file gone.
  if (item.code === "ENOENT") return "dangling link or gone";
  if (item.code === "ELOOP") return "link loop";
  return item.reason.replace(/ \([A-Z0-9_]+\)$/, "");
}

/**
 * The count line for what was left out, or undefined when nothing was: `3 files skipped: 2 not
 * sessions, 1 unreadable (permission denied)`.
 */
export function skippedLine(
  unreadableItems: readonly Unreadable[],
  notSessions: readonly NotSession[] = [],
): string | undefined {
  const total = unreadableItems.length + notSessions.length;
  if (total === 0) return undefined;
  const parts: string[] = [];
  const count = (kind: NotSession["kind"]) => notSessions.filter((n) => n.kind === kind).length;
  const other = count("not a session");
  if (other > 0) parts.push(`${other} not ${other === 1 ? "a session" : "sessions"}`);
  if (count("empty") > 0) parts.push(`${count("empty")} empty`);
  const irregular = count("not a regular file");
  if (irregular > 0) parts.push(`${irregular} not ${irregular === 1 ? "a regular file" : "regular files"}`);
  const reasons = new Map<string, number>();
  for (const item of unreadableItems)
    reasons.set(shortReason(item), (reasons.get(shortReason(item)) ?? 0) + 1);
  for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)))
    parts.push(`${n} unreadable (${reason})`);
  return `${total} file${total === 1 ? "" : "s"} skipped: ${parts.join(", ")}`;
}

/**
 * Warns on stderr about each item left out, then (when any was) the count line. Sorts both
 * lists by path in place, so `--json` lists them in that order too.
 */
export function warnSkipped(io: Io, items: Unreadable[], notSessions: NotSession[] = []): void {
  items.sort(byPath);
  notSessions.sort(byPath);
  for (const item of items) io.warn(oneLineField(`${item.path}: cannot read: ${item.reason}; skipped`));
  for (const n of notSessions) io.warn(oneLineField(`${n.path}: ${NOT_SESSION_TEXT[n.kind]}; skipped`));
  const line = skippedLine(items, notSessions);
  if (line) io.warn(line);
}

/** The exit code: {@link EXIT_UNREADABLE} when anything was skipped, else `otherwise`. */
export function exitCode(items: readonly Unreadable[], otherwise: number): number {
  return items.length > 0 ? EXIT_UNREADABLE : otherwise;
}

/**
 * Why a listing shows nothing when files were left out, and what to do: `no sessions listed
 * under R: 2 files could not be read (permission denied); give yourself read access (chmod u+r)`.
 */
export function nothingListedBecause(
  where: string,
  items: readonly Unreadable[],
  notSessions: readonly NotSession[],
): string {
  const because = skippedLine(items, notSessions)?.replace(" skipped:", " left out:") ?? "";
  const denied = items.some((i) => i.code === "EACCES" || i.code === "EPERM");
  const todo = denied
    ? "give yourself read access to them (chmod u+r FILE) and run it again"
    : items.length > 0
      ? "check the files named above (links that lead nowhere, files gone meanwhile)"
      : "these are no pi sessions; `pi-session validate FILE` says what is wrong with one";
  return `no sessions ${where}: ${because}; ${todo}`;
}

/**
 * `error` from reading `path` as the CLI reports it, when it is about reading (no permission, a
 * dangling link): `<path>: permission denied (EACCES)` with what to do, never a bare `EACCES`.
 * Anything else is returned as it is.
 */
export function readFailure(path: string, error: unknown): unknown {
  if (error instanceof CliError || typeof (error as { syscall?: unknown })?.syscall !== "string")
    return error;
  const item = unreadable(path, error);
  if (!item) return error;
  const denied = item.code === "EACCES" || item.code === "EPERM";
  return new CliError(`${path}: ${item.reason}`, {
    code: item.code ?? undefined,
    hint: denied
      ? "Give yourself read access to it (chmod u+r FILE), or run as its owner."
      : "Check the path, or pass a session id (see `pi-session ls`).",
  });
}
