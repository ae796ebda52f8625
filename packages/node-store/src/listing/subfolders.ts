/**
 * The `.jsonl` files of a project directory, with those in its subfolders: where subagent
 * extensions write the sessions they start (pi-subagents: `<parent session file without
 * .jsonl>/<run>/run-<n>/session.jsonl`). pi lists only the files directly in a project
 * directory; a store's mirror (the session database) and `pi-session ls` see these too. Use
 * {@link jsonlFilesBelow} where a listing walks a project directory.
 */
import { type Dirent, readdirSync } from "node:fs";
import { sep } from "node:path";

/** The `.jsonl` names of one directory. */
export interface DirectoryNames {
  /** The directory (as given, or joined below it with `/`-free names). */
  dir: string;
  names: string[];
}

const join = (dir: string, name: string) => (dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`);

/**
 * The `.jsonl` names directly in `dir` and, with `subfolders`, in every directory below it
 * (walked depth first in name order; links to directories are not followed, so no loop), each
 * directory once. A directory that cannot be read is told to `onUnreadable` (a missing one is
 * not) and left out. `dir` itself comes first.
 */
export function jsonlFilesBelow(
  dir: string,
  opts: { subfolders: boolean; onUnreadable?: ((path: string, error: Error) => void) | undefined },
): DirectoryNames[] {
  const out: DirectoryNames[] = [];
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    let entries: Dirent[] | string[];
    try {
      entries = opts.subfolders ? readdirSync(current, { withFileTypes: true }) : readdirSync(current);
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ENOENT") opts.onUnreadable?.(current, error as Error);
      continue;
    }
    const names: string[] = [];
    const below: string[] = [];
    for (const e of entries) {
      const name = typeof e === "string" ? e : e.name;
      if (name.endsWith(".jsonl")) names.push(name);
      else if (typeof e !== "string" && e.isDirectory()) below.push(join(current, name));
    }
    out.push({ dir: current, names });
    below.sort().reverse();
    stack.push(...below);
  }
  return out;
}
