/**
 * Finding sessions: the sessions root (`roots.ts`), the files under it (node-store's `listStoreFiles`, ids
 * from their names), and what a `<session>` argument names: a path, a session id or a unique
 * prefix of one in any case, or `latest` (the top row of `ls`, see `listing.ts`).
 */
import { basename, dirname, join, resolve } from "node:path";
import {
  type PathStat,
  type StoreFilesOptions,
  encodeCwd,
  listStoreFiles,
  sessionIdOfFileName,
  statPath,
} from "@pi-session/node-store";
import { CliError, UsageError } from "./errors.js";
import { matchIdPrefix } from "./ids.js";
import { listStoreSessions } from "./listing.js";
import { type LocateOptions, expandHome, sessionsRoot } from "./roots.js";

export { type LocateOptions, sessionsRoot } from "./roots.js";

export interface SessionFile {
  path: string;
  /** The session id from the file name. */
  id: string;
  /** The directory's name (`--home-u-p--`), or "" for a file directly in the root. */
  project: string;
  mtimeMs: number;
  size: number;
}

/** pi's per-cwd directory name: `/home/u/p` -> `--home-u-p--`. */
export function projectDirName(cwd: string): string {
  return encodeCwd(cwd);
}

/**
 * Every `*.jsonl` directly in `root` or in its project directories, newest first; what is left
 * out is told to `opts`' callbacks (node-store's `listStoreFiles`).
 */
export function listSessionFiles(root: string, opts: StoreFilesOptions = {}): SessionFile[] {
  // The root as the listing's paths spell it (no trailing separator).
  const top = dirname(join(root, "x.jsonl"));
  const files = listStoreFiles(root, opts).map(({ path, mtimeMs, size }): SessionFile => {
    const dir = dirname(path);
    const project = dir === top ? "" : basename(dir);
    return { path, id: sessionIdOfFileName(path), project, mtimeMs, size };
  });
  return files.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1));
}

/** What is at `path`, or null when nothing can be found there (missing, or not reachable). */
function statIfThere(path: string): PathStat | null {
  try {
    return statPath(path);
  } catch {
    return null;
  }
}

function looksLikePath(arg: string): boolean {
  return arg.includes("/") || arg.includes("\\") || arg.endsWith(".jsonl") || arg.startsWith(".");
}

const MAX_CANDIDATES = 10;

function candidateList(files: SessionFile[]): string[] {
  const shown = files.slice(0, MAX_CANDIDATES).map((f) => `  ${f.id}  ${f.path}`);
  if (files.length > MAX_CANDIDATES) shown.push(`  ... and ${files.length - MAX_CANDIDATES} more`);
  return shown;
}

/**
 * Resolves a `<session>` argument to an absolute file path, or throws a {@link CliError}: a
 * path, `latest` (the top row of `ls`: the newest session of the current directory's project,
 * by its last message), or a session id or prefix of one, matched without regard to case.
 */
export async function resolveSession(arg: string, options: LocateOptions): Promise<string> {
  if (arg === "") throw new UsageError("empty <session> argument");
  const asPath = resolve(options.cwd, expandHome(arg));
  const found = statIfThere(asPath);
  if (found) {
    if (found.kind === "a directory") {
      throw new CliError(`${arg} is a directory, not a session file`, {
        hint: "Pass one .jsonl file, or use `pi-session ls --session-dir <dir>` to list a directory.",
      });
    }
    return asPath;
  }
  if (looksLikePath(arg)) {
    throw new CliError(`${arg}: no such file`, {
      hint: "Check the path, or pass a session id (see `pi-session ls`).",
    });
  }
  const { root } = sessionsRoot(options);
  if (arg === "latest") {
    const { sessions } = await listStoreSessions({
      root,
      env: options.env,
      all: false,
      cwd: options.cwd,
      nearestProject: true,
    });
    const newest = sessions[0];
    if (!newest) {
      throw new CliError(`no sessions for ${options.cwd} under ${root}`, {
        hint: "Run it from a project directory pi has sessions for, or pass a session id or path (see `pi-session ls --all`).",
      });
    }
    return newest.path;
  }
  const files = listSessionFiles(root);
  const match = matchIdPrefix(arg, files, (f) => f.id);
  if (match.kind === "one") return match.item.path;
  if (match.kind === "none") {
    throw new CliError(`no session with id or prefix \`${arg}\` under ${root}`, {
      hint: "List sessions with `pi-session ls --all`, or pass a file path or --session-dir.",
    });
  }
  throw new CliError(`session id prefix \`${arg}\` is ambiguous: ${match.items.length} sessions match:`, {
    details: candidateList(match.items),
    hint: "Type more characters of the id, or pass the file path.",
  });
}
