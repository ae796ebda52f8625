/**
 * Path arguments of the commands that take files or directories (`validate`, `migrate`):
 * files as given, directories searched (recursively) for `*.jsonl`, in a stable order.
 * Kept apart from the commands so loading one does not load the other's dependencies.
 */
import { resolve } from "node:path";
import { type PathStat, listSessionFilesUnder, statPath } from "@pi-session/node-store";
import { CliError } from "./errors.js";
import type { Context } from "./program.js";
import { type NotSession, type Unreadable, unreadable } from "./unreadable.js";

export interface ExpandedPaths {
  /** The files to read, in order. */
  files: string[];
  /** Directories that cannot be read, and `*.jsonl` links that lead nowhere (or are denied). */
  unreadable: Unreadable[];
  /** `*.jsonl` entries of walked directories that are no regular file (passed by, said). */
  notSessions: NotSession[];
}

/**
 * Files named by the arguments: files as given, directories searched for `*.jsonl` regular
 * files (FIFOs, sockets and devices are never sessions: passed by, never opened, listed in
 * `notSessions`). A directory
 * or link that cannot be read is reported in `unreadable` and the walk goes on; an argument
 * that does not exist, or is neither a regular file nor a directory, is an error (nothing is
 * done).
 */
export function expandPaths(ctx: Context, args: readonly string[]): ExpandedPaths {
  const files: string[] = [];
  const skipped: Unreadable[] = [];
  const notSessions: NotSession[] = [];
  const onNotRegular = (path: string) => notSessions.push({ path, kind: "not a regular file" });
  const onUnreadable = (path: string, error: unknown) => {
    const item = unreadable(path, error);
    if (!item) throw error;
    skipped.push(item);
  };
  for (const arg of args) {
    const full = resolve(ctx.cwd, arg);
    let st: PathStat | null;
    try {
      st = statPath(full);
    } catch {
      st = null;
    }
    if (!st) throw new CliError(`${arg}: no such file or directory`, { hint: "Check the path." });
    if (st.kind === "file") {
      files.push(full);
      continue;
    }
    if (st.kind !== "a directory") throw new CliError(`${arg}: not a regular file (${st.kind})`);
    files.push(...listSessionFilesUnder(full, { onUnreadable, onNotRegular }));
  }
  return { files, unreadable: skipped, notSessions };
}
