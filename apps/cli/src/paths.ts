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
  /** Directories that cannot be read, and `*.jsonl` entries that are not files (a dangling link, a FIFO). */
  unreadable: Unreadable[];
}

/** What a directory entry that is neither a file, a directory nor a link is. */
function kindOf(entry: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean }): string {
  if (entry.isFIFO()) return "a FIFO";
  if (entry.isSocket()) return "a socket";
  return entry.isCharacterDevice() ? "a character device" : "a block device";
}

/** A `*.jsonl` entry that is a link: its target when that is a file; links to directories are not followed. */
function linkedFile(path: string, skipped: Unreadable[]): boolean {
  try {
    const st = statSync(path);
    if (st.isFile()) return true;
    if (!st.isDirectory()) skipped.push({ path, code: "ENOTREG", reason: "not a regular file" });
  } catch (error) {
    const item = unreadable(path, error);
    if (!item) throw error;
    skipped.push(item);
  }
  return false;
}

/**
 * Files named by the arguments: files as given, directories searched for `*.jsonl`. A
 * directory (or entry) that cannot be read is reported in `unreadable` and the walk goes on;
 * an argument that does not exist at all is an error (nothing is done).
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
    if (!st.isDirectory()) {
      files.push(full);
      continue;
    }
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
        else if (entry.isSymbolicLink()) {
          if (linkedFile(path, skipped)) found.push(path);
        } else skipped.push({ path, code: "ENOTREG", reason: `not a regular file (${kindOf(entry)})` });
      }
    }
    files.push(...found.sort());
  }
  return { files, unreadable: skipped };
}
