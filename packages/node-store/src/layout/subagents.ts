/**
 * Which session another one belongs under: a fork names its parent in its header
 * (`parentSession`, as pi's `/fork` writes it), a subagent session sits in a subfolder of its
 * project directory, in the known layouts under a folder named after its parent's file
 * (pi-subagents: `<parent without .jsonl>/<run>/run-<n>/session.jsonl`), or in a folder named
 * `subagents`. Pure path rules (no file access): the caller says which paths are sessions of
 * the store. Use {@link sessionParentOf} wherever sessions are shown under their parent (ls,
 * show, the web app, stats, search).
 */
import { dirname, relative, sep } from "node:path";

/** The session a session is shown under, and why. */
export interface SessionParent {
  /** The parent's path (as the header names it, or the store's path of the parent file). */
  path: string;
  /** `subagent`: a subfolder layout says so; `fork`: only the header's `parentSession` does. */
  kind: "subagent" | "fork";
}

/**
 * Whether `path` sits below a project directory of `root` rather than directly in it (or in
 * the root): where subagent extensions write sessions.
 */
export function isInSubfolder(root: string, path: string): boolean {
  const rel = relative(root, path);
  if (rel === "" || rel.startsWith("..")) return false;
  return rel.split(sep).length > 2;
}

/**
 * The parent a subfolder layout gives `path`: the nearest folder above it, below the root,
 * whose name is that of a session file beside it (`<dir>/<name>/.../x.jsonl` under
 * `<dir>/<name>.jsonl`), when `isSession` says that file is one of the store's.
 */
export function layoutParentOf(
  root: string,
  path: string,
  isSession: (path: string) => boolean,
): string | undefined {
  if (!isInSubfolder(root, path)) return undefined;
  const top = root.endsWith(sep) ? root.slice(0, -1) : root;
  for (let dir = dirname(path); dir !== top && dir.length > top.length; dir = dirname(dir)) {
    const candidate = `${dir}.jsonl`;
    if (candidate !== path && isSession(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The session `path` belongs under: its subfolder layout's parent, else its header's
 * `parentSession` (`headerParent`); the kind is `subagent` for a session in a subfolder of its
 * project directory or in a `subagents` folder, else `fork`. Undefined for a session of its own.
 */
export function sessionParentOf(
  root: string,
  session: { path: string; headerParent: string | null | undefined },
  isSession: (path: string) => boolean,
): SessionParent | undefined {
  const nested = isInSubfolder(root, session.path);
  const subagent = nested || dirname(session.path).split(sep).includes("subagents");
  const byLayout = nested ? layoutParentOf(root, session.path, isSession) : undefined;
  const parent = byLayout ?? session.headerParent ?? undefined;
  if (parent === undefined || parent === "") return undefined;
  return { path: parent, kind: subagent ? "subagent" : "fork" };
}
