/**
 * Path arguments of the commands that take files or directories (`validate`, `migrate`):
 * files as given, directories searched (recursively) for `*.jsonl`, in a stable order.
 * Kept apart from the commands so loading one does not load the other's dependencies.
 */
import { type Dirent, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { CliError } from "./errors.js";
import type { Context } from "./program.js";
import { type Unreadable, unreadable } from "./unreadable.js";

export interface ExpandedPaths {
  /** The files to read, in order. */
  files: string[];
  /** Directories that cannot be read, and `*.jsonl` links that lead nowhere (or are denied). */
  unreadable: Unreadable[];
}

/** What a stat that is neither a file nor a directory is. */
function kindOf(st: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean }): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  return st.isCharacterDevice() ? "a character device" : "a block device";
}

/**
 * A `*.jsonl` entry that is a link: true when its target is a regular file. A link to a
 * directory is not followed, one to a FIFO or device is passed by (only regular files are
 * sessions); one that leads nowhere (or is denied) is reported.
 */
function linkedFile(path: string, skipped: Unreadable[]): boolean {
  try {
    return statSync(path).isFile();
  } catch (error) {
    const item = unreadable(path, error);
    if (!item) throw error;
    skipped.push(item);
    return false;
  }
}

/**
 * Files named by the arguments: files as given, directories searched for `*.jsonl` regular
 * files (FIFOs, sockets and devices are never sessions: passed by, never opened). A directory
 * or link that cannot be read is reported in `unreadable` and the walk goes on; an argument
 * that does not exist, or is neither a regular file nor a directory, is an error (nothing is
 * done).
 */
export function expandPaths(ctx: Context, args: readonly string[]): ExpandedPaths {
  const files: string[] = [];
  const skipped: Unreadable[] = [];
  for (const arg of args) {
    const full = resolve(ctx.cwd, arg);
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(full);
    } catch {
      throw new CliError(`${arg}: no such file or directory`, { hint: "Check the path." });
    }
    if (st.isFile()) {
      files.push(full);
      continue;
    }
    if (!st.isDirectory()) throw new CliError(`${arg}: not a regular file (${kindOf(st)})`);
    const stack = [full];
    const found: string[] = [];
    while (stack.length > 0) {
      const dir = stack.pop() as string;
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch (error) {
        const item = unreadable(dir, error);
        if (!item) throw error;
        skipped.push(item);
        continue;
      }
      for (const entry of entries) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) stack.push(path);
        else if (!entry.name.endsWith(".jsonl")) continue;
        else if (entry.isFile()) found.push(path);
        else if (entry.isSymbolicLink() && linkedFile(path, skipped)) found.push(path);
      }
    }
    files.push(...found.sort());
  }
  return { files, unreadable: skipped };
}
