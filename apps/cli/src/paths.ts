/**
 * Path arguments of the commands that take files or directories (`validate`, `migrate`):
 * files as given, directories searched (recursively) for `*.jsonl`, in a stable order.
 * Kept apart from the commands so loading one does not load the other's dependencies.
 */
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { CliError } from "./errors.js";
import type { Context } from "./program.js";

/** Files named by the arguments: files as given, directories searched for `*.jsonl`. */
export function expandPaths(ctx: Context, args: readonly string[]): string[] {
  const files: string[] = [];
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
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) stack.push(path);
        else if (entry.isFile() && entry.name.endsWith(".jsonl")) found.push(path);
      }
    }
    files.push(...found.sort());
  }
  return files;
}
