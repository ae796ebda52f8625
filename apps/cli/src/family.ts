/**
 * A session's family, for `show` and `tree`: the session it belongs under (its subfolder's
 * parent, or its header's `parentSession`) and the sessions under it (the subagents in its
 * folder, `<file without .jsonl>/...`, and the forks of it in its own directory), found without
 * listing the whole store. Use {@link familyOf} for one session; `ls` has the whole listing.
 */
import { basename, dirname } from "node:path";
import {
  type SessionInfo,
  type SessionParent,
  listSessionDir,
  listSessionFilesUnder,
  readSessionInfo,
  sessionParentOf,
  statPath,
} from "@pi-session/node-store";
import { oneLine } from "@pi-session/render";

/** A session related to another, as shown. */
export interface Relative {
  path: string;
  id: string;
  title: string;
  kind: SessionParent["kind"];
}

export interface Family {
  parent: (SessionParent & { id: string | null }) | null;
  children: Relative[];
}

const isSessionFile = (path: string): boolean => {
  try {
    return statPath(path)?.kind === "file";
  } catch {
    return false;
  }
};

const titleOf = (info: SessionInfo) => oneLine(info.name ?? info.firstMessage, 60);

/** The family of the session file `path` (whose header names `headerParent`) in the store at `root`. */
export async function familyOf(
  root: string,
  path: string,
  headerParent: string | undefined,
  env: Record<string, string | undefined>,
): Promise<Family> {
  const found = sessionParentOf(root, { path, headerParent }, isSessionFile);
  let parent: Family["parent"] = null;
  if (found) {
    const info = isSessionFile(found.path) ? await readSessionInfo(found.path).catch(() => null) : null;
    parent = { ...found, id: typeof info?.id === "string" ? info.id : null };
  }
  const children: Relative[] = [];
  // Subagents: in the folder named after this file, those whose nearest session folder is it.
  const folder = path.endsWith(".jsonl") ? path.slice(0, -".jsonl".length) : undefined;
  if (folder !== undefined && statPath(folder)?.kind === "a directory") {
    for (const file of listSessionFilesUnder(folder, { onUnreadable: () => {} })) {
      if (sessionParentOf(root, { path: file, headerParent: undefined }, isSessionFile)?.path !== path)
        continue;
      const info = await readSessionInfo(file).catch(() => null);
      if (info) children.push({ path: file, id: String(info.id), title: titleOf(info), kind: "subagent" });
    }
  }
  // Forks (and subagents written flat by extensions that name their parent in the header).
  const beside = await listSessionDir(dirname(path), { env }).catch(() => [] as SessionInfo[]);
  for (const info of beside)
    if (info.parentSessionPath === path && info.path !== path)
      children.push({ path: info.path, id: String(info.id), title: titleOf(info), kind: "fork" });
  return { parent, children };
}

/** The family as lines for a terminal (none when it has no parent and no children). */
export function familyLines(family: Family): string[] {
  const lines: string[] = [];
  if (family.parent)
    lines.push(
      `${family.parent.kind} of ${family.parent.id ?? basename(family.parent.path)}  ${family.parent.path}`,
    );
  for (const child of family.children) lines.push(`${child.kind} ${child.id}  ${child.title}  ${child.path}`);
  return lines;
}

/** The family as `--json` gives it. */
export function familyJson(family: Family) {
  return {
    parent: family.parent
      ? { path: family.parent.path, id: family.parent.id, kind: family.parent.kind }
      : null,
    children: family.children.map(({ path, id, kind }) => ({ path, id, kind })),
  };
}
