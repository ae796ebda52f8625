/**
 * Fork lineage: a session's parent (header `parentSession`, legacy `branchedFrom`) and the
 * root of every session's lineage, by which `stats` counts a fork's copy of its parent's usage
 * once. Use {@link sessionParent} wherever a header's parent is read, and {@link statsSessionOf}
 * to make what `computeStats` needs of one file.
 */
import { indexRoleOf, sessionInfoName } from "@pi-session/format";
import type { StatsSession } from "./usage.js";
import { usageRows } from "./usage-rows.js";

/** The session a fork was made from: header `parentSession`, else legacy `branchedFrom`. */
export function sessionParent(header: { readonly parentSession?: unknown }): string | undefined {
  const fields = header as { readonly parentSession?: unknown; readonly branchedFrom?: unknown };
  if (typeof fields.parentSession === "string") return fields.parentSession;
  return typeof fields.branchedFrom === "string" ? fields.branchedFrom : undefined;
}

/**
 * What stats needs of one session file: its header fields (the project is the header's cwd,
 * else `project`), its name and its usage rows, read from `entries` in file order.
 */
export function statsSessionOf(file: {
  path: string;
  project: string;
  header: Record<string, unknown>;
  entries: readonly Record<string, unknown>[];
}): StatsSession {
  const { header, entries } = file;
  let name: string | null = null;
  for (const entry of entries) if (indexRoleOf(entry.type) === "name") name = sessionInfoName(entry) ?? null;
  return {
    path: file.path,
    id: typeof header.id === "string" ? header.id : "",
    project: typeof header.cwd === "string" && header.cwd !== "" ? header.cwd : file.project,
    parentPath: sessionParent(header),
    created: typeof header.timestamp === "string" ? header.timestamp : "",
    name,
    usage: usageRows(entries),
  };
}

/** The file name's last segment without directories (either separator). */
function baseName(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return cut >= 0 ? path.slice(cut + 1) : path;
}

/** Session id from a path pi wrote (`<timestamp>_<id>.jsonl`), else the path itself. */
function idFromPath(path: string): string {
  const name = baseName(path);
  const stem = name.endsWith(".jsonl") ? name.slice(0, -6) : name;
  const cut = stem.indexOf("_");
  return cut >= 0 ? stem.slice(cut + 1) : stem;
}

/**
 * The lineage root of every session: follow parent links through the sessions given (by path,
 * or by the id in the parent's file name, since a store may have moved); a parent that is not
 * among them still names the root by its id, so two forks of a missing parent share a root.
 */
export function lineageRoots<S extends Pick<StatsSession, "path" | "id" | "parentPath">>(
  sessions: readonly S[],
): Map<S, string> {
  const byPath = new Map<string, S>();
  const byId = new Map<string, S>();
  for (const s of sessions) {
    byPath.set(s.path, s);
    if (!byId.has(s.id)) byId.set(s.id, s);
  }
  const roots = new Map<S, string>();
  for (const start of sessions) {
    let current = start;
    let root = start.id;
    const seen = new Set<S>([start]);
    while (current.parentPath !== undefined) {
      const parentId = idFromPath(current.parentPath);
      const parent = byPath.get(current.parentPath) ?? byId.get(parentId);
      root = parent ? parent.id : parentId;
      if (!parent || seen.has(parent)) break;
      seen.add(parent);
      current = parent;
    }
    roots.set(start, root);
  }
  return roots;
}
