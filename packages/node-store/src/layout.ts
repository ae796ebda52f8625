/**
 * Layout: where pi keeps its sessions and how files and directories are named.
 *
 * Mirrors pi 1.6.0 exactly (`config.ts`, `session-manager.ts`): the agent dir comes from
 * `PI_CODING_AGENT_DIR` (else `~/.pi/agent`), sessions live in `PI_CODING_AGENT_SESSION_DIR`,
 * else the `sessionDir` setting of `<agentDir>/settings.json`, else `<agentDir>/sessions`;
 * each cwd gets a `--<encoded cwd>--` directory (only under the default root: a custom
 * session dir is flat), and each file is `<timestamp with : and . as ->_<id>.jsonl`.
 * Every function that builds a path checks that the result stays inside its directory.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";

/** An environment map, e.g. `process.env`. */
export type Env = Readonly<Record<string, string | undefined>>;

export const ENV_AGENT_DIR = "PI_CODING_AGENT_DIR";
export const ENV_SESSION_DIR = "PI_CODING_AGENT_SESSION_DIR";

/** pi's session id rule (`assertValidSessionId`, 1.6.0). */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** pi's message, reproduced literally. */
export const INVALID_SESSION_ID_MESSAGE =
  "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character";

/** Thrown when a computed path would leave the directory it belongs to. */
export class UnsafePathError extends Error {
  constructor(
    readonly dir: string,
    readonly component: string,
  ) {
    super(`Unsafe path component ${JSON.stringify(component)}: it would leave ${dir}`);
    this.name = "UnsafePathError";
  }
}

/** Expands a leading `~` (`~`, `~/x`, and `~\x` on Windows) to the home directory. */
export function expandTilde(path: string, home: string = homedir()): string {
  if (path === "~") return home;
  if (path.startsWith("~/") || (sep === "\\" && path.startsWith("~\\"))) return join(home, path.slice(2));
  return path;
}

/** The agent dir: `PI_CODING_AGENT_DIR` (with `~` expanded) or `~/.pi/agent`. */
export function getAgentDir(env: Env = process.env, home: string = homedir()): string {
  const fromEnv = env[ENV_AGENT_DIR];
  if (fromEnv) return expandTilde(fromEnv, home);
  return join(home, ".pi", "agent");
}

export interface SessionsRootOptions {
  env?: Env;
  /** Defaults to {@link getAgentDir}(env). */
  agentDir?: string;
  /** Base for relative paths (pi resolves them against the process cwd). */
  cwd?: string;
  home?: string;
}

/** Where the sessions root came from. */
export interface SessionsRoot {
  /** Absolute directory. */
  dir: string;
  source: "env" | "settings" | "default";
  /**
   * True when the directory is a custom (flat) session dir: pi then keeps every session
   * directly in it (no per-cwd subdirectory) and filters lists by the header cwd.
   */
  custom: boolean;
}

/** Reads `sessionDir` from `<agentDir>/settings.json`; missing file or invalid JSON → undefined. */
export function readSessionDirSetting(agentDir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(agentDir, "settings.json"), "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const value = (parsed as { sessionDir?: unknown }).sessionDir;
    return typeof value === "string" && value !== "" ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Resolves the sessions root as pi does: `PI_CODING_AGENT_SESSION_DIR`, then the `sessionDir`
 * setting, then `<agentDir>/sessions`. `~` is expanded; a relative path is resolved against
 * `cwd` (default: the process cwd, as pi's `normalizePath`).
 */
export function resolveSessionsRoot(opts: SessionsRootOptions = {}): SessionsRoot {
  const env = opts.env ?? process.env;
  const home = opts.home ?? homedir();
  const agentDir = opts.agentDir ?? getAgentDir(env, home);
  const base = opts.cwd ?? process.cwd();
  const fromEnv = env[ENV_SESSION_DIR];
  if (fromEnv) return { dir: resolve(base, expandTilde(fromEnv, home)), source: "env", custom: true };
  const fromSettings = readSessionDirSetting(agentDir);
  if (fromSettings !== undefined) {
    return { dir: resolve(base, expandTilde(fromSettings, home)), source: "settings", custom: true };
  }
  return { dir: resolve(base, agentDir, "sessions"), source: "default", custom: false };
}

/** The sessions root directory (see {@link resolveSessionsRoot}). */
export function getSessionsRoot(opts: SessionsRootOptions = {}): string {
  return resolveSessionsRoot(opts).dir;
}

/** `<agentDir>/sessions`, ignoring overrides: the root of pi's per-cwd directories. */
export function getDefaultSessionsRoot(agentDir: string = getAgentDir()): string {
  return join(resolve(agentDir), "sessions");
}

/**
 * pi's directory name for a cwd: the cwd is resolved to an absolute path, a leading `/` or
 * `\` is dropped, every `/`, `\` and `:` becomes `-`, and the result is wrapped in `--`.
 * Lossy: `/a/b` and `/a-b` collide, which is why lists filter by the header cwd.
 */
export function encodeCwd(cwd: string): string {
  const resolved = resolve(cwd);
  return `--${resolved.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/** Joins one name under `dir`, refusing anything that is not a single plain component. */
export function safeJoin(dir: string, name: string): string {
  if (
    name === "" ||
    name === "." ||
    name === ".." ||
    name.includes("/") ||
    name.includes("\\") ||
    name.includes("\0")
  ) {
    throw new UnsafePathError(dir, name);
  }
  const full = join(dir, name);
  if (!isInside(dir, full)) throw new UnsafePathError(dir, name);
  return full;
}

/** True when `path` is `dir` itself or below it (lexically, after resolving both). */
export function isInside(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** The per-cwd session directory under a sessions root (pi's `getDefaultSessionDirPath`). */
export function sessionDirForCwd(cwd: string, root: string = getDefaultSessionsRoot()): string {
  if (cwd.includes("\0")) throw new UnsafePathError(root, cwd);
  return safeJoin(resolve(root), encodeCwd(cwd));
}

export function isValidSessionId(id: unknown): id is string {
  return typeof id === "string" && SESSION_ID_PATTERN.test(id);
}

/** Throws pi's error when `id` is not a valid session id. */
export function assertValidSessionId(id: unknown): asserts id is string {
  if (!isValidSessionId(id)) throw new Error(INVALID_SESSION_ID_MESSAGE);
}

/**
 * The file name pi gives a session: `<isoTimestamp with : and . replaced by ->_<id>.jsonl`.
 * Throws for an invalid id, or a timestamp that contains a path separator, NUL or `_`.
 */
export function sessionFileName(isoTimestamp: string, sessionId: string): string {
  assertValidSessionId(sessionId);
  if (/[/\\\0_]/.test(isoTimestamp) || isoTimestamp === "") {
    throw new UnsafePathError(".", isoTimestamp);
  }
  return `${isoTimestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}

/** Full path of a new session file in `dir`. */
export function sessionFilePath(dir: string, isoTimestamp: string, sessionId: string): string {
  return safeJoin(dir, sessionFileName(isoTimestamp, sessionId));
}

export interface ParsedSessionFileName {
  /** The timestamp part as it appears in the name, e.g. `2025-01-01T00-00-00-000Z`. */
  fileTimestamp: string;
  /** The ISO timestamp it encodes (`2025-01-01T00:00:00.000Z`), when it has pi's shape. */
  isoTimestamp?: string;
  sessionId: string;
}

/**
 * Splits a pi session file name (a base name or a path) into timestamp and id; null when the
 * name is not `<timestamp>_<valid id>.jsonl`.
 */
export function parseSessionFileName(name: string): ParsedSessionFileName | null {
  const base = basename(name);
  if (!base.endsWith(".jsonl")) return null;
  const stem = base.slice(0, -".jsonl".length);
  const cut = stem.indexOf("_");
  if (cut <= 0) return null;
  const fileTimestamp = stem.slice(0, cut);
  const sessionId = stem.slice(cut + 1);
  if (!isValidSessionId(sessionId)) return null;
  const m = /^(\d{4,}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2})-(\d{3})Z$/.exec(fileTimestamp);
  const result: ParsedSessionFileName = { fileTimestamp, sessionId };
  if (m) result.isoTimestamp = `${m[1]}:${m[2]}:${m[3]}.${m[4]}Z`;
  return result;
}
