/**
 * Finding sessions: the sessions root, the files under it, and what a `<session>` argument
 * names (a path, a full session id, a unique id prefix in any case, or `latest`: the top row of
 * `ls`, see `listing.ts`).
 *
 * Ids are read from file names (pi names files `<timestamp>_<sessionId>.jsonl`); `latest` asks
 * the listing, which reads the files through node-store.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";
import { encodeCwd, expandTilde, resolveSessionsRoot } from "@pi-session/node-store";
import { CliError, UsageError } from "./errors.js";
import { matchIdPrefix } from "./ids.js";
import { listSessions } from "./listing.js";

export interface SessionFile {
  path: string;
  /** The session id from the file name. */
  id: string;
  /** The directory's name (`--home-u-p--`), or "" for a file directly in the root. */
  project: string;
  mtimeMs: number;
  size: number;
}

export interface LocateOptions {
  env: Record<string, string | undefined>;
  cwd: string;
  sessionDir: string | undefined;
}

function expandHome(path: string): string {
  return expandTilde(path, homedir());
}

/**
 * Where sessions live, by pi's own rule (node-store's `resolveSessionsRoot`): `--session-dir`,
 * `PI_CODING_AGENT_SESSION_DIR`, the `sessionDir` setting (`<cwd>/.pi/settings.json` over
 * `<agentDir>/settings.json`), then `<agentDir>/sessions` with `<agentDir>` =
 * `PI_CODING_AGENT_DIR` or `~/.pi/agent`; `~` and `file://` paths as pi reads them.
 */
export function sessionsRoot(options: LocateOptions): { root: string; custom: boolean } {
  const found = resolveSessionsRoot({ env: options.env, cwd: options.cwd, sessionDir: options.sessionDir });
  return { root: found.dir, custom: found.custom };
}

/** pi's per-cwd directory name: `/home/u/p` -> `--home-u-p--`. */
export function projectDirName(cwd: string): string {
  return encodeCwd(cwd);
}

/** The session id in a pi file name (`<timestamp>_<id>.jsonl`), or the name without `.jsonl`. */
export function idFromFileName(name: string): string {
  const stem = name.endsWith(".jsonl") ? name.slice(0, -6) : name;
  const underscore = stem.indexOf("_");
  return underscore >= 0 ? stem.slice(underscore + 1) : stem;
}

function fileInfo(path: string, project: string): SessionFile | undefined {
  try {
    const st = statSync(path);
    if (!st.isFile()) return undefined;
    return { path, id: idFromFileName(basename(path)), project, mtimeMs: st.mtimeMs, size: st.size };
  } catch {
    return undefined;
  }
}

/** Every `*.jsonl` directly in `root` or in its project directories, newest first. */
export function listSessionFiles(root: string): SessionFile[] {
  const files: SessionFile[] = [];
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return files;
  }
  for (const name of names) {
    const full = join(root, name);
    if (name.endsWith(".jsonl")) {
      const info = fileInfo(full, "");
      if (info) files.push(info);
      continue;
    }
    let inner: string[];
    try {
      if (!statSync(full).isDirectory()) continue;
      inner = readdirSync(full);
    } catch {
      continue;
    }
    for (const innerName of inner) {
      if (!innerName.endsWith(".jsonl")) continue;
      const info = fileInfo(join(full, innerName), name);
      if (info) files.push(info);
    }
  }
  return files.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1));
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
  if (existsSync(asPath)) {
    if (statSync(asPath).isDirectory()) {
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
    const { sessions } = await listSessions({ root, env: options.env, all: false, cwd: options.cwd });
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
